package main

// One-line summaries and the trimming of unexported fields and methods.
//
// The summary of a declaration is what go doc prints for it without -all: signatures
// kept, bodies and literals elided to "{ ... }", lists cut with "..." once they pass
// 80 columns, nesting cut at ten levels. A struct or interface shown with -all loses
// its unexported fields or methods (unless -u) and says so in a line comment; the doc
// comments of the fields are rewritten from their text (directives dropped), as go doc
// does before handing the AST to go/format.

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"strings"
)

const (
	elided   = "..."
	maxDepth = 10
)

func (p *page) oneLine(node ast.Node) string {
	return p.summary(node, maxDepth)
}

// summary is the one-line form of node, at most depth levels deep.
func (p *page) summary(node ast.Node, depth int) string {
	if depth == 0 {
		return elided
	}
	depth--
	switch n := node.(type) {
	case nil:
		return ""
	case *ast.GenDecl:
		return p.valueLine(n, depth)
	case *ast.FuncDecl:
		recv := p.summary(n.Recv, depth)
		if recv != "" {
			recv = "(" + recv + ") "
		}
		return "func " + recv + n.Name.Name + strings.TrimPrefix(p.summary(n.Type, depth), "func")
	case *ast.TypeSpec:
		sep := " "
		if n.Assign.IsValid() {
			sep = " = "
		}
		return "type " + n.Name.Name + p.typeParams(n.TypeParams, depth) + sep + p.summary(n.Type, depth)
	case *ast.FuncType:
		return p.funcLine(n, depth)
	case *ast.StructType:
		if n.Fields == nil || len(n.Fields.List) == 0 {
			return "struct{}"
		}
		return "struct{ ... }"
	case *ast.InterfaceType:
		if n.Methods == nil || len(n.Methods.List) == 0 {
			return "interface{}"
		}
		return "interface{ ... }"
	case *ast.FieldList:
		switch {
		case n == nil || len(n.List) == 0:
			return ""
		case len(n.List) == 1:
			return p.field(n.List[0], depth)
		}
		return elided
	case *ast.FuncLit:
		return p.summary(n.Type, depth) + " { ... }"
	case *ast.CompositeLit:
		if len(n.Elts) == 0 {
			return p.summary(n.Type, depth) + "{}"
		}
		return p.summary(n.Type, depth) + "{ " + elided + " }"
	case *ast.ArrayType:
		return "[" + p.summary(n.Len, depth) + "]" + p.summary(n.Elt, depth)
	case *ast.MapType:
		return "map[" + p.summary(n.Key, depth) + "]" + p.summary(n.Value, depth)
	case *ast.CallExpr:
		args := make([]string, 0, len(n.Args))
		for _, arg := range n.Args {
			args = append(args, p.summary(arg, depth))
		}
		return p.summary(n.Fun, depth) + "(" + joinCut(args) + ")"
	case *ast.UnaryExpr:
		return n.Op.String() + p.summary(n.X, depth)
	case *ast.Ident:
		return n.Name
	}
	var text strings.Builder
	format.Node(&text, p.fset, node)
	if strings.Contains(text.String(), "\n") {
		return elided
	}
	return text.String()
}

// valueLine summarizes a const or var group by its first spec with a shown first
// name: "const Name Type = value", with " ..." when the group has more specs. The type
// carries over from earlier specs as in an iota list; the value shown is the one at
// the spec's own index among its values (so a later spec's value shows only when it
// lists that many).
func (p *page) valueLine(decl *ast.GenDecl, depth int) string {
	trailer := ""
	if len(decl.Specs) > 1 {
		trailer = " " + elided
	}
	typ := ""
	for i, spec := range decl.Specs {
		vspec := spec.(*ast.ValueSpec)
		if vspec.Type != nil {
			typ = " " + p.summary(vspec.Type, depth)
		} else if len(vspec.Values) > 0 {
			typ = ""
		}
		if !p.visible(vspec.Names[0].Name) {
			continue
		}
		val := ""
		if i < len(vspec.Values) && vspec.Values[i] != nil {
			val = " = " + p.summary(vspec.Values[i], depth)
		}
		return fmt.Sprintf("%s %s%s%s%s", decl.Tok, vspec.Names[0].Name, typ, val, trailer)
	}
	return ""
}

func (p *page) funcLine(fn *ast.FuncType, depth int) string {
	var params, results []string
	if fn.Params != nil {
		for _, field := range fn.Params.List {
			params = append(params, p.field(field, depth))
		}
	}
	parens := false
	if fn.Results != nil {
		parens = len(fn.Results.List) > 1
		for _, field := range fn.Results.List {
			parens = parens || len(field.Names) > 0
			results = append(results, p.field(field, depth))
		}
	}
	head := "func" + p.typeParams(fn.TypeParams, depth) + "(" + joinCut(params) + ")"
	switch {
	case len(results) == 0:
		return head
	case parens:
		return head + " (" + joinCut(results) + ")"
	}
	return head + " " + joinCut(results)
}

func (p *page) typeParams(list *ast.FieldList, depth int) string {
	if list.NumFields() == 0 {
		return ""
	}
	var params []string
	for _, field := range list.List {
		params = append(params, p.field(field, depth))
	}
	return "[" + joinCut(params) + "]"
}

func (p *page) field(field *ast.Field, depth int) string {
	if len(field.Names) == 0 {
		return p.summary(field.Type, depth)
	}
	names := make([]string, 0, len(field.Names))
	for _, name := range field.Names {
		names = append(names, name.Name)
	}
	return joinCut(names) + " " + p.summary(field.Type, depth)
}

// joinCut joins with ", ", ending the list with "..." at the item that would take
// it (counting ", " after each) past 80 columns.
func joinCut(items []string) string {
	width := 0
	for i, item := range items {
		width += len(item) + len(", ")
		if width > lineWidth {
			items = append(items[:i:i], elided)
			break
		}
	}
	return strings.Join(items, ", ")
}

// trimFields returns the fields of a struct (or the methods of an interface) without
// the unexported ones, unless -u, plus a "// Has unexported ..." marker when any went;
// every field's doc comment is rewritten from its text.
func (p *page) trimFields(fields *ast.FieldList, isInterface bool) *ast.FieldList {
	what := "fields"
	if isInterface {
		what = "methods"
	}
	trimmed := false
	list := make([]*ast.Field, 0, len(fields.List))
	for _, field := range fields.List {
		if field.Doc != nil {
			rewriteDoc(field.Doc)
		}
		names := field.Names
		if len(names) == 0 {
			embedded := field.Type
			if star, ok := embedded.(*ast.StarExpr); ok && !isInterface {
				embedded = star.X
			}
			switch e := embedded.(type) {
			case *ast.Ident:
				if isInterface && e.Obj == nil && (e.Name == "error" || e.Name == "comparable") {
					list = append(list, field) // shown as if exported
					continue
				}
				names = []*ast.Ident{e}
			case *ast.SelectorExpr:
				names = []*ast.Ident{e.Sel}
			}
		}
		keep := true
		if !p.opt.unexported {
			for _, name := range names {
				if !token.IsExported(name.Name) {
					trimmed, keep = true, false
					break
				}
			}
		}
		if keep {
			list = append(list, field)
		}
	}
	if !trimmed {
		return fields
	}
	marker := &ast.Field{
		// An empty name just before the closing brace: the printer puts the line
		// comment where the cut fields were.
		Type:    &ast.Ident{Name: "", NamePos: fields.Closing - 1},
		Comment: &ast.CommentGroup{List: []*ast.Comment{{Text: "// Has unexported " + what + ".\n"}}},
	}
	return &ast.FieldList{Opening: fields.Opening, List: append(list, marker), Closing: fields.Closing}
}

// rewriteDoc replaces a field's doc comment by "// " lines of its text ("//" before a
// tab-indented line), keeping a final blank comment line and the first position.
func rewriteDoc(group *ast.CommentGroup) {
	text := group.Text()
	if len(group.List[len(group.List)-1].Text) != 2 { // not ending in a bare "//"
		text = strings.TrimSuffix(text, "\n")
	}
	start := group.List[0].Slash
	group.List = group.List[:0]
	for _, line := range strings.Split(text, "\n") {
		prefix := "// "
		if strings.HasPrefix(line, "\t") {
			prefix = "//"
		}
		group.List = append(group.List, &ast.Comment{Text: prefix + line})
	}
	group.List[0].Slash = start
}
