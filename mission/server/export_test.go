package server

// SetEUID makes the token check expect uid and returns the undo.
func SetEUID(uid int) func() {
	old := euid
	euid = func() int { return uid }
	return func() { euid = old }
}
