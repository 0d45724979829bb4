"""A module of the declarations whose documentation go doc lays out in special ways.

For the documentation helper's comparison with ``go doc`` (``test_godoc.py``): iota
lists that start unexported, mixed groups, typed constants of exported and unexported
types, constructors, generics, aliases, grouped types, embedded fields and methods,
field comments with directives, doc links, headings, lists and code blocks, long
signatures, BUG notes, deprecations, a main package, an empty package, an import
comment, a file excluded by a build constraint, a package named unlike its directory,
a file that declares its own ``error``, and a package whose function body does not
parse (``go list`` loads it, ``go doc`` fails on it).
"""

from __future__ import annotations

MODULE = {
    "go.mod": "module example.com/odd\n\ngo 1.22\n",
    "doc.go": """\
// Package odd shows what go doc does with odd declarations. It is long enough that
// the text printer has to wrap it: Lorem ipsum dolor sit amet, consectetur adipiscing
// elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua — ünïcödé
// counts as one column per rune.
//
// # A heading
//
// A list:
//   - one item that is long enough to need wrapping when printed at the indentation of a list item
//   - [Parse] links to a function, [Store.Put] to a method, [fmt.Println] elsewhere,
//     and [NotThere] to nothing
//
//  1. numbered
//  2. list
//
// Code:
//
//	for i := 0; i < 10; i++ {
//		fmt.Println(i)
//	}
//
// See https://example.com/odd for more.
//
// Deprecated: use something else.
package odd

// BUG(ann): Parse ignores its input.

// BUG(bob): Store is not safe for concurrent use, and this note is long enough to run
// over more than one line.
""",
    "values.go": """\
package odd

import (
	"fmt"
	"strings"
)

// Weekday is a day.
type Weekday int

// The days; the first is unexported.
const (
	sunday Weekday = iota
	Monday
	Tuesday
	wednesday
	Thursday
)

const (
	a = 1
	B = 2 // B is two.
	c, D = 3, 4
)

// Mixed is a group of a typed and untyped constants.
const (
	MaxSize         = 1 << 20
	Name    string  = "odd"
	Ratio   float64 = 1.5
	hidden          = "x"
)

type level int

// Levels of an unexported type.
const (
	Low level = iota
	High
)

// Default is the default store.
var Default = NewStore(nil)

// Handlers map names to functions.
var Handlers = map[string]func(string) error{
	"print": func(s string) error { _, err := fmt.Println(s); return err },
}

var (
	// Upper is a function value.
	Upper = strings.ToUpper
	lower = strings.ToLower
	// Table is a composite literal.
	Table = []struct{ K, V string }{{"a", "b"}}
	Long  = fmt.Sprint("a very long argument list", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)
)

// Sentence is a long string.
const Sentence = "the quick brown fox jumps over the lazy dog, " +
	"and then it does it again"

// ErrOdd is an error.
var ErrOdd = fmt.Errorf("odd")
""",
    "types.go": """\
package odd

import (
	"io"
	"strings"
	"sync"
)

// Store holds records.
//
// Deprecated: use Map.
type Store struct {
	sync.Mutex
	*strings.Builder
	io.Reader `json:"reader"`
	inner

	// Name is the name.
	//
	//go:generate echo not shown
	Name string // trailing
	// Count counts.
	//	indented line
	Count, total int
	secret string
	Nested struct {
		X int
		y int
	}
}

type inner struct{ Deep int }

// NewStore makes a store.
func NewStore(r io.Reader) *Store { return &Store{Reader: r} }

func newStore() *Store { return nil }

// Put stores v.
func (s *Store) Put(k string, v any) {}

func (s *Store) put() {}

// Get returns the value of k; its parameter list is long enough to be cut short.
func (s *Store) Get(key string, fallback string, options map[string]string,
	retries int, verbose bool) (value string, ok bool) {
	return "", false
}

// Configure has more parameters than a summary line shows.
func Configure(name string, values map[string][]string, callback func(string) error,
	retries, timeout int, verbose bool, more ...string) error {
	return nil
}

// Reader reads.
type Reader interface {
	io.Reader
	error
	comparableish()
	// Close closes.
	Close() error
}

// Number is a constraint.
type Number interface {
	~int | ~int64 | ~float64
}

// Keyed is a constraint with comparable.
type Keyed interface {
	comparable
	Key() string
}

// List is a generic list.
type List[T any, K comparable] struct {
	items []T
	Keys  map[K]T
}

// NewList makes a list.
func NewList[T any, K comparable](n int) *List[T, K] { return nil }

// Push adds.
func (l *List[T, K]) Push(v T) {}

// Sum adds numbers.
func Sum[N Number](values ...N) (total N) { return }

// Alias is an alias.
type Alias = Store

type (
	// X is grouped.
	X int
	y int
	// Z is grouped too.
	Z struct{ X }
)

// Constructor of an unexported type.
func NewInner() inner { return inner{} }

// Parse parses.
func Parse(s string) (result string, err error) { return s, nil }

// Handle is a function type.
type Handle func(w io.Writer, r io.Reader) (int, error)

// Chan is a channel type.
type Chan chan<- struct{}

// Array has a length.
type Array [4 * 2]byte

// Ellipsis has an implied length.
var Ellipsis = [...]string{"a", "b"}

// Pointer is a pointer.
var Pointer *Store = &Store{}

// Negative is a unary expression.
const Negative = -1
""",
    "ignored.go": (
        "//go:build ignore\n\npackage odd\n\n// Ignored is never shown.\nfunc Ignored() {}\n"
    ),
    "odd_test.go": 'package odd\n\nimport "testing"\n\nfunc TestParse(t *testing.T) {}\n',
    "cmd/tool/main.go": """\
// Tool is a command.
package main

// Exported is shown with -cmd.
func Exported() {}

func main() {}
""",
    "empty/empty.go": "package empty\n",
    "named/a.go": (
        "// Package other lives in directory named.\npackage other\n\n// V is v.\nvar V int\n"
    ),
    "comment/c.go": (
        'package comment // import "example.com/odd/comment"\n\n// F is f.\nfunc F() {}\n'
    ),
    "shadow/shadow.go": """\
// Package shadow declares its own error type.
package shadow

type error interface{ Error() string }

// I embeds the package's own error.
type I interface {
	error
	M()
}

// G has a type parameter named comparable.
type G[comparable any] interface {
	comparable
}
""",
    "shadow/other.go": """\
package shadow

// J embeds error in another file, where it is not declared.
type J interface {
	error
}
""",
    "unexported/u.go": """\
package unexported

type hidden struct{ X int }

func helper() {}

const limit = 3

var state int
""",
    "broken/broken.go": """\
// Package broken does not parse beyond its imports.
package broken

import "fmt"

// F is f.
func F() {
	fmt.Println(
}
""",
}

#: A package with a cgo file (only where a C compiler is, since go list and go doc
#: agree on the cgo files only then).
CGO = {
    "withcgo/c.go": (
        "// Package withcgo uses cgo.\npackage withcgo\n\n// #include <stdlib.h>\n"
        'import "C"\n\n// Free frees.\nfunc Free() {}\n'
    ),
    "withcgo/plain.go": "package withcgo\n\n// Plain is plain.\nfunc Plain() {}\n",
}
