module bou.ke/monkey

go 1.18
