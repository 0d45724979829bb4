package main

// Which directory go doc documents for its argument.
//
// tai gives go doc a directory: "./dir" below the working directory for the project's
// packages, an absolute directory for the others (an import path would make go doc
// search the code roots breadth first for a directory whose path ends in it, which
// costs a walk of GOROOT and can land elsewhere). The helper takes the same argument,
// finds the directory the same way and documents the package only when it is the one
// tai loaded; any other argument fails the job and the caller runs go doc.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

func isDotSlash(arg string) bool {
	if arg == "." || arg == ".." {
		return true
	}
	for _, prefix := range []string{"./", "../", `.\`, `..\`} {
		if strings.HasPrefix(arg, prefix) {
			return true
		}
	}
	return false
}

// resolve is the directory go doc documents for a directory argument.
func resolve(arg string) (string, error) {
	if filepath.IsAbs(arg) {
		return filepath.Clean(arg), nil
	}
	if !isDotSlash(arg) {
		return "", errors.New("only directory arguments are supported")
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, arg), nil
}

// sameDir reports whether two paths name the same directory.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	infoA, errA := os.Stat(a)
	infoB, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(infoA, infoB)
}
