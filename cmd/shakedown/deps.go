package main

import (
	_ "github.com/goccy/go-yaml"
	_ "github.com/spf13/cobra"
	_ "gonum.org/v1/plot"
	_ "github.com/google/go-cmp/cmp"
)

func main() {}
