package main

// One job: from the files the caller sent to the parsed package go doc would document.
//
// go doc picks a package's files with go/build's default context (not with the go
// command's, which also knows GOFLAGS build tags and whether a C compiler exists), so
// the helper asks go/build the same question, serving the sent bytes through
// Context.OpenFile, and refuses the job when the answer is not the set of files sent:
// the caller then runs go doc itself rather than show documentation of other files.

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// options are the go doc flags a job may carry (always with -cmd for tai; without
// it a main package shows only its package comment).
type options struct {
	all, unexported, cmd bool
}

func parseFlags(flags []string) (options, error) {
	var opt options
	for _, flag := range flags {
		switch flag {
		case "-all":
			opt.all = true
		case "-u":
			opt.unexported = true
		case "-cmd":
			opt.cmd = true
		default:
			return opt, fmt.Errorf("flag %s is not supported", flag)
		}
	}
	return opt, nil
}

// selectFiles runs go/build on dir with the sent files served from memory and
// returns the build package, or an error when go doc would pick other files.
func selectFiles(dir string, files map[string][]byte) (*build.Package, error) {
	ctx := build.Default
	ctx.OpenFile = func(path string) (io.ReadCloser, error) {
		if filepath.Dir(path) == dir {
			if data, ok := files[filepath.Base(path)]; ok {
				return io.NopCloser(bytes.NewReader(data)), nil
			}
		}
		return os.Open(path)
	}
	bp, err := ctx.ImportDir(dir, build.ImportComment)
	if err != nil {
		return nil, fmt.Errorf("go/build: %v", err)
	}
	picked := append(append([]string(nil), bp.GoFiles...), bp.CgoFiles...)
	sort.Strings(picked)
	sent := make([]string, 0, len(files))
	for name := range files {
		sent = append(sent, name)
	}
	sort.Strings(sent)
	if strings.Join(picked, "\x00") != strings.Join(sent, "\x00") {
		return nil, fmt.Errorf("go doc would document %v, not the %v sent", picked, sent)
	}
	return bp, nil
}

// parse parses the files in name order, as go/parser.ParseDir reads a directory,
// under the names ParseDir gives them, so positions come out the same. Identifiers
// are not resolved unless a file could need it: go doc's one use of resolution is to
// tell the predeclared error and comparable, embedded in an interface, from a type of
// that name the same file declares; when a file declares such a name, the package is
// parsed again with resolution, as go doc parses it.
func parse(dir string, files map[string][]byte) (*token.FileSet, []*ast.File, error) {
	fset, parsed, err := parseAll(dir, files, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	for _, file := range parsed {
		if declaresPredeclared(file) {
			fset, parsed, err = parseAll(dir, files, parser.ParseComments)
			break
		}
	}
	if err != nil {
		return nil, nil, err
	}
	for _, file := range parsed {
		if file.Name.Name != parsed[0].Name.Name {
			return nil, nil, errors.New("multiple packages in directory")
		}
	}
	if len(parsed) == 0 {
		return nil, nil, errors.New("no source-code package in directory")
	}
	return fset, parsed, nil
}

func parseAll(dir string, files map[string][]byte, mode parser.Mode) (*token.FileSet, []*ast.File, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	parsed := make([]*ast.File, 0, len(names))
	for _, name := range names {
		file, err := parser.ParseFile(fset, filepath.Join(dir, name), files[name], mode)
		if err != nil {
			return nil, nil, err
		}
		parsed = append(parsed, file)
	}
	return fset, parsed, nil
}

// declaresPredeclared reports whether a file declares, at its top level or as a type
// parameter of a top-level type, a name that resolution would give to an embedded
// "error" or "comparable".
func declaresPredeclared(file *ast.File) bool {
	special := func(name *ast.Ident) bool { return name.Name == "error" || name.Name == "comparable" }
	anyOf := func(list *ast.FieldList) bool {
		if list != nil {
			for _, field := range list.List {
				for _, name := range field.Names {
					if special(name) {
						return true
					}
				}
			}
		}
		return false
	}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && special(d.Name) {
				return true
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if special(s.Name) || anyOf(s.TypeParams) {
						return true
					}
				case *ast.ValueSpec:
					for _, name := range s.Names {
						if special(name) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// render answers one job; a panic of the libraries fails the job, not the process.
func render(job request, files map[string][]byte) (text []byte, err error) {
	defer func() {
		if caught := recover(); caught != nil {
			text, err = nil, fmt.Errorf("rendering %s: %v", job.Dir, caught)
		}
	}()
	opt, err := parseFlags(job.Flags)
	if err != nil {
		return nil, err
	}
	roots, err := moduleRoots()
	if err != nil {
		return nil, err
	}
	dir, err := resolve(job.Target)
	if err != nil {
		return nil, err
	}
	if !sameDir(dir, job.Dir) {
		return nil, fmt.Errorf("go doc %s documents %s, not %s", job.Target, dir, job.Dir)
	}
	bp, err := selectFiles(filepath.Clean(dir), files)
	if err != nil {
		return nil, err
	}
	fset, parsed, err := parse(bp.Dir, files)
	if err != nil {
		return nil, err
	}
	importPath := bp.ImportPath
	if importPath == "builtin" {
		opt.unexported = true // go doc shows the builtin package's lower-case names
	}
	docs, err := doc.NewFromFiles(fset, parsed, importPath, doc.AllDecls)
	if err != nil {
		return nil, err
	}
	clause := bp.ImportComment
	if clause == "" {
		clause = importPath
	}
	if named, ok := roots.importPath(bp.Dir); ok {
		clause = named
	}
	page := newPage(opt, fset, docs, bp.Name, clause)
	page.packageDoc()
	return page.out.Bytes(), nil
}
