package main

// The page of one package, laid out as go doc lays out a package's documentation.
//
// The layout facts, as the go command's doc printer has them: a package clause, the
// package comment as text (go/doc/comment's Text printer: declarations' comments
// indented four spaces, code blocks eight), then with -all the sections CONSTANTS,
// VARIABLES, FUNCTIONS and TYPES (each type followed by its constants, variables,
// constructors and methods), without -all a one-line summary of each declaration;
// BUG notes close the page. Constants, variables and constructors that belong to an
// exported type appear under the type, the rest (also those of an unexported type
// without -u) in the package sections. Declarations are printed by go/format after
// go/doc has dropped bodies and comments, with unexported specs, fields and methods
// cut (unless -u) — the AST is edited in place, so a page is built from a fresh parse.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/format"
	"go/token"
)

const (
	indent    = "    "
	lineWidth = 80 // the width one-line summaries truncate their lists at
)

type page struct {
	opt    options
	fset   *token.FileSet
	docs   *doc.Package
	name   string
	clause string
	out    bytes.Buffer
	// typed holds the values shown under their (exported) type; ctors the functions.
	typed map[*doc.Value]bool
	ctors map[*doc.Func]bool
}

func newPage(opt options, fset *token.FileSet, docs *doc.Package, name, clause string) *page {
	p := &page{opt: opt, fset: fset, docs: docs, name: name, clause: clause,
		typed: map[*doc.Value]bool{}, ctors: map[*doc.Func]bool{}}
	for _, typ := range docs.Types {
		docs.Consts = append(docs.Consts, typ.Consts...)
		docs.Vars = append(docs.Vars, typ.Vars...)
		docs.Funcs = append(docs.Funcs, typ.Funcs...)
		if !p.visible(typ.Name) {
			continue
		}
		for _, value := range append(append([]*doc.Value(nil), typ.Consts...), typ.Vars...) {
			p.typed[value] = true
		}
		for _, fun := range typ.Funcs {
			p.ctors[fun] = true
		}
	}
	return p
}

// visible reports whether a name is shown: exported, or any name with -u.
func (p *page) visible(name string) bool {
	return p.opt.unexported || token.IsExported(name)
}

func (p *page) printf(format string, args ...any) {
	fmt.Fprintf(&p.out, format, args...)
}

// endLines makes the page end in at least n newlines (n is 1 or 2).
func (p *page) endLines(n int) {
	for !bytes.HasSuffix(p.out.Bytes(), []byte("\n\n")[:n]) {
		p.out.WriteByte('\n')
	}
}

// text prints a doc comment through go/doc/comment's text printer.
func (p *page) text(comment, prefix, codePrefix string) {
	printer := p.docs.Printer()
	printer.TextPrefix = prefix
	printer.TextCodePrefix = codePrefix
	p.out.Write(printer.Text(p.docs.Parser().Parse(comment)))
}

// decl prints a declaration and its doc comment below it, indented.
func (p *page) decl(comment string, node ast.Node) {
	if err := format.Node(&p.out, p.fset, node); err != nil {
		panic(err)
	}
	p.endLines(1)
	if comment != "" {
		p.text(comment, indent, indent+indent)
		p.endLines(2)
	}
}

func (p *page) packageDoc() {
	if p.name != "main" || p.opt.cmd {
		p.printf("package %s // import %q\n\n", p.name, p.clause)
	}
	p.text(p.docs.Doc, "", indent)
	p.endLines(1)
	switch {
	case p.opt.all:
		shown := map[*ast.GenDecl]bool{}
		p.valueSection("CONSTANTS", p.docs.Consts, shown)
		p.valueSection("VARIABLES", p.docs.Vars, shown)
		p.funcSection()
		p.typeSection()
	case p.name == "main" && !p.opt.cmd:
		return
	default:
		p.endLines(2)
		p.summaries()
	}
	if bugs := p.docs.Notes["BUG"]; len(bugs) > 0 {
		p.printf("\n")
		for _, note := range bugs {
			p.printf("BUG: %s\n", note.Body)
		}
	}
}

func (p *page) header(title string, printed *bool) {
	if !*printed {
		p.printf("\n%s\n\n", title)
		*printed = true
	}
}

func (p *page) anyVisible(names []string) bool {
	for _, name := range names {
		if p.visible(name) {
			return true
		}
	}
	return false
}

func (p *page) valueSection(title string, values []*doc.Value, shown map[*ast.GenDecl]bool) {
	var printed bool
	for _, value := range values {
		if !p.typed[value] && p.anyVisible(value.Names) {
			p.header(title, &printed)
			p.value(value, shown)
		}
	}
}

func (p *page) funcSection() {
	var printed bool
	for _, fun := range p.docs.Funcs {
		if p.visible(fun.Name) && !p.ctors[fun] {
			p.header("FUNCTIONS", &printed)
			p.decl(fun.Doc, fun.Decl)
		}
	}
}

func (p *page) typeSection() {
	var printed bool
	for _, typ := range p.docs.Types {
		if p.visible(typ.Name) {
			p.header("TYPES", &printed)
			p.typeDoc(typ)
		}
	}
}

// value prints a const or var group once, keeping only the specs that declare a
// shown name; a kept spec that relied on the type of a dropped one before it (iota
// lists) gets that type written out.
func (p *page) value(value *doc.Value, shown map[*ast.GenDecl]bool) {
	if shown[value.Decl] {
		return
	}
	var kept []ast.Spec
	var carried ast.Expr
	for _, spec := range value.Decl.Specs {
		vspec := spec.(*ast.ValueSpec)
		if vspec.Type != nil {
			carried = vspec.Type
		}
		for _, ident := range vspec.Names {
			if !p.visible(ident.Name) {
				continue
			}
			if vspec.Type == nil && vspec.Values == nil && carried != nil {
				vspec.Type = &ast.Ident{Name: p.oneLine(carried), NamePos: vspec.End() - 1}
			}
			kept = append(kept, vspec)
			carried = nil
			break
		}
	}
	if len(kept) == 0 {
		return
	}
	value.Decl.Specs = kept
	p.decl(value.Doc, value.Decl)
	shown[value.Decl] = true
}

// typeDoc prints a type and, below it, what belongs to it.
func (p *page) typeDoc(typ *doc.Type) {
	decl := typ.Decl
	var spec *ast.TypeSpec
	for _, s := range decl.Specs {
		if s.(*ast.TypeSpec).Name.Name == typ.Name {
			spec = s.(*ast.TypeSpec)
			break
		}
	}
	switch t := spec.Type.(type) {
	case *ast.StructType:
		t.Fields = p.trimFields(t.Fields, false)
	case *ast.InterfaceType:
		t.Methods = p.trimFields(t.Methods, true)
	}
	if len(decl.Specs) > 1 {
		decl.Specs = []ast.Spec{spec}
	}
	p.decl(typ.Doc, decl)
	p.endLines(2)
	shown := map[*ast.GenDecl]bool{}
	for _, value := range append(append([]*doc.Value(nil), typ.Consts...), typ.Vars...) {
		if p.anyVisible(value.Names) {
			p.value(value, shown)
		}
	}
	for _, fun := range append(append([]*doc.Func(nil), typ.Funcs...), typ.Methods...) {
		if p.visible(fun.Name) {
			p.decl(fun.Doc, fun.Decl)
			if fun.Doc == "" {
				p.endLines(2)
			}
		}
	}
}

// summaries prints the one-line summary of each shown declaration (no -all).
func (p *page) summaries() {
	for _, values := range [][]*doc.Value{p.docs.Consts, p.docs.Vars} {
		for _, value := range values {
			if p.typed[value] {
				continue
			}
			if line := p.oneLine(value.Decl); line != "" {
				p.printf("%s\n", line)
			}
		}
	}
	for _, fun := range p.docs.Funcs {
		if p.visible(fun.Name) && !p.ctors[fun] {
			p.printf("%s\n", p.oneLine(fun.Decl))
		}
	}
	for _, typ := range p.docs.Types {
		for _, spec := range typ.Decl.Specs {
			tspec := spec.(*ast.TypeSpec)
			if !p.visible(tspec.Name.Name) {
				continue
			}
			p.printf("%s\n", p.oneLine(tspec))
			for _, values := range [][]*doc.Value{typ.Consts, typ.Vars} {
				for _, value := range values {
					if line := p.oneLine(value.Decl); line != "" {
						p.printf("%s%s\n", indent, line)
					}
				}
			}
			for _, fun := range typ.Funcs {
				if p.visible(fun.Name) {
					p.printf("%s%s\n", indent, p.oneLine(fun.Decl))
				}
			}
		}
	}
}
