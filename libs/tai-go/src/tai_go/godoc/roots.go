package main

// The code roots: where go doc looks for packages and how it names them.
//
// In module mode go doc does not print the import path it was given: it takes the
// first code root whose directory holds the package — GOROOT/src, GOROOT/src/cmd, then
// the vendor directory or the modules of `go list -m all` in its order — and appends
// the package's directory below it. The helper asks the go command the same questions once per process, in the same working
// directory and environment, so a package inside another module's directory gets the
// same (surprising) path go doc prints. Outside module mode the job fails and the
// caller runs go doc.
//
// GOROOT is go doc's: the go command is built with -trimpath, so go/build's default
// context has no GOROOT unless the environment sets one, and go doc asks `go env
// GOROOT` for its roots. The helper is built the same way (tai checks the go binary's
// build settings), so its go/build default context is the same as go doc's.

import (
	"errors"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

type codeRoot struct {
	importPath, dir string
}

type codeRoots []codeRoot

var (
	rootsOnce sync.Once
	rootsList codeRoots
	rootsErr  error
)

// moduleRoots computes the code roots once (see the file comment).
func moduleRoots() (codeRoots, error) {
	rootsOnce.Do(func() { rootsList, rootsErr = findRoots() })
	return rootsList, rootsErr
}

// goroot is go doc's GOROOT: go/build's, else what `go env GOROOT` says.
func goroot() (string, error) {
	if build.Default.GOROOT != "" {
		return build.Default.GOROOT, nil
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", errors.New("go env GOROOT failed")
	}
	return strings.TrimSpace(string(out)), nil
}

// goOutput is the standard output of `GOROOT/bin/go ARGS` and whether it succeeded
// (what it printed counts even when it failed, as in go doc).
func goOutput(root string, args ...string) (string, bool) {
	out, err := exec.Command(filepath.Join(root, "bin", "go"), args...).Output()
	return string(out), err == nil
}

func findRoots() (codeRoots, error) {
	root, err := goroot()
	if err != nil {
		return nil, err
	}
	gomod, _ := goOutput(root, "env", "GOMOD")
	gomod = strings.TrimSpace(gomod)
	if gomod == "" {
		return nil, errors.New("not in module mode (go doc prints GOPATH import paths)")
	}
	src := filepath.Join(root, "src")
	roots := codeRoots{{"", src}, {"cmd", filepath.Join(src, "cmd")}}
	if gomod == os.DevNull {
		return roots, nil // modules on, but outside any module: no module roots
	}
	var main, flags, all string
	var mainOK bool
	var wait sync.WaitGroup
	wait.Add(3)
	go func() {
		defer wait.Done()
		main, mainOK = goOutput(root, "list", "-m", "-f", "{{.Path}}\n{{.Dir}}\n{{.GoVersion}}\n"+
			`{{range context.ReleaseTags}}{{if eq . "go1.14"}}{{.}}{{end}}{{end}}`+"\n")
	}()
	go func() { defer wait.Done(); flags, _ = goOutput(root, "env", "GOFLAGS") }()
	go func() { defer wait.Done(); all, _ = goOutput(root, "list", "-m", "-f={{.Path}}\t{{.Dir}}", "all") }()
	wait.Wait()
	explicit := modFlag.FindStringSubmatch(strings.TrimSpace(flags))
	if mainOK {
		lines := strings.Split(main, "\n")
		if len(lines) < 5 {
			return roots, nil // go doc gives up on module roots here
		}
		mainPath, mainDir := lines[0], lines[1]
		if vendored(explicit, mainDir, lines[2], lines[3] == "go1.14") {
			vendor := codeRoot{"", filepath.Join(mainDir, "vendor")}
			roots = append(codeRoots{vendor}, roots...)
			if mainPath != "std" {
				roots = append(roots, codeRoot{mainPath, mainDir})
			}
			return roots, nil
		}
	} else if explicit != nil && explicit[1] == "vendor" {
		return nil, errors.New("-mod=vendor without a main module (go doc fails)")
	}
	for _, line := range strings.Split(all, "\n") {
		path, dir, _ := strings.Cut(line, "\t")
		if dir != "" {
			roots = append(roots, codeRoot{path, dir})
		}
	}
	return roots, nil
}

var modFlag = regexp.MustCompile(`-mod[ =](\w+)`)

// vendored reports whether the go command would use the main module's vendor
// directory: an explicit -mod flag (explicit, the match in GOFLAGS) decides, else a
// vendor directory in a module whose go version is at least 1.14.
func vendored(explicit []string, mainDir, goVersion string, has114 bool) bool {
	if explicit != nil {
		return explicit[1] == "vendor"
	}
	if !has114 {
		return false
	}
	info, err := os.Stat(filepath.Join(mainDir, "vendor"))
	return err == nil && info.IsDir() && atLeast(goVersion, 1, 14)
}

// atLeast reports whether the go.mod version MAJOR.MINOR[.PATCH] is at least
// major.minor; a version that is not plain numbers is not.
func atLeast(version string, major, minor int) bool {
	parts := strings.Split(version, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	numbers := make([]int, len(parts))
	for i, part := range parts {
		n, err := strconv.Atoi(part)
		if err != nil || part[0] < '0' || part[0] > '9' || len(part) > 1 && part[0] == '0' {
			return false
		}
		numbers[i] = n
	}
	return numbers[0] > major || numbers[0] == major && numbers[1] >= minor
}

// importPath is the import path of dir below the first root holding it.
func (roots codeRoots) importPath(dir string) (string, bool) {
	for _, root := range roots {
		if dir == root.dir {
			return root.importPath, true
		}
		if strings.HasPrefix(dir, root.dir+string(filepath.Separator)) {
			suffix := filepath.ToSlash(dir[len(root.dir)+1:])
			if root.importPath == "" {
				return suffix, true
			}
			return root.importPath + "/" + suffix, true
		}
	}
	return "", false
}
