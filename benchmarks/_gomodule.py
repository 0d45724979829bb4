"""A generated Go module for the Go context benchmarks (not a benchmark itself).

``generate(root, count)`` writes ``example.com/gen`` with ``count`` packages under
``pkg/``: each has a package doc, four source files (a documented type with methods,
functions with bodies of ordinary length, a theory constant) and a table-driven test
file, and imports up to two earlier packages, so the graph has depth. (For scale: in the
standard library, ``go doc -all -u`` is 8-25% of a package's source.) The result is
committed to git so change counts exist.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

SOURCE = """\
// Package {name} is generated package {index}. It keeps records of kind {index}.
package {name}

import (
{imports}\t"strings"
)

// TheoryOf{cap} says why records of kind {index} are kept sorted: lookups dominate.
const TheoryOf{cap} = "Records are kept sorted because lookups dominate writes; " +
\t"a sorted slice beats a map below a few thousand entries."

// Record is one entry.
type Record struct {{
\tKey   string
\tValue int
}}

// Normalize returns the key in canonical form.
func (r Record) Normalize() string {{
\treturn strings.ToLower(strings.TrimSpace(r.Key)) + "{name}"
}}

// Combine folds the values of the imported packages into one.
func Combine(values ...int) int {{
\ttotal := 0
\tfor _, v := range values {{
\t\ttotal += v
\t}}
\treturn total{uses}
}}
"""

STORE = """\
package {name}

import "sort"

// Store holds records in key order.
type Store struct {{
\trecords []Record
}}

// Put inserts or replaces a record.
func (s *Store) Put(r Record) {{
\ti := s.find(r.Key)
\tif i < len(s.records) && s.records[i].Key == r.Key {{
\t\ts.records[i] = r
\t\treturn
\t}}
\ts.records = append(s.records, Record{{}})
\tcopy(s.records[i+1:], s.records[i:])
\ts.records[i] = r
}}

// Get returns the record of key.
func (s *Store) Get(key string) (Record, bool) {{
\ti := s.find(key)
\tif i < len(s.records) && s.records[i].Key == key {{
\t\treturn s.records[i], true
\t}}
\treturn Record{{}}, false
}}

func (s *Store) find(key string) int {{
\treturn sort.Search(len(s.records), func(i int) bool {{ return s.records[i].Key >= key }})
}}
"""

UTIL = """\
package {name}

// clamp bounds v to [lo, hi].
func clamp(v, lo, hi int) int {{
\tif v < lo {{
\t\treturn lo
\t}}
\tif v > hi {{
\t\treturn hi
\t}}
\treturn v
}}

// Scale multiplies every value by f, clamped to a byte.
func Scale(values []int, f int) []int {{
\tout := make([]int, len(values))
\tfor i, v := range values {{
\t\tout[i] = clamp(v*f, 0, 255)
\t}}
\treturn out
}}
"""

CODEC = """\
package {name}

import (
\t"errors"
\t"strconv"
\t"strings"
)

// ErrSyntax reports a malformed encoded record.
var ErrSyntax = errors.New("{name}: syntax error")

// Encode writes records as key=value lines, escaping separators in keys.
func Encode(records []Record) string {{
\tvar b strings.Builder
\tfor i, r := range records {{
\t\tif i > 0 {{
\t\t\tb.WriteByte('\\n')
\t\t}}
\t\tfor _, c := range r.Key {{
\t\t\tswitch c {{
\t\t\tcase '=', '\\n', '\\\\':
\t\t\t\tb.WriteByte('\\\\')
\t\t\t}}
\t\t\tb.WriteRune(c)
\t\t}}
\t\tb.WriteByte('=')
\t\tb.WriteString(strconv.Itoa(r.Value))
\t}}
\treturn b.String()
}}

// Decode parses what Encode writes.
func Decode(text string) ([]Record, error) {{
\tvar out []Record
\tfor _, line := range strings.Split(text, "\\n") {{
\t\tif line == "" {{
\t\t\tcontinue
\t\t}}
\t\tkey, value, err := splitLine(line)
\t\tif err != nil {{
\t\t\treturn nil, err
\t\t}}
\t\tn, err := strconv.Atoi(value)
\t\tif err != nil {{
\t\t\treturn nil, ErrSyntax
\t\t}}
\t\tout = append(out, Record{{Key: key, Value: n}})
\t}}
\treturn out, nil
}}

func splitLine(line string) (string, string, error) {{
\tvar key strings.Builder
\tescaped := false
\tfor i, c := range line {{
\t\tswitch {{
\t\tcase escaped:
\t\t\tkey.WriteRune(c)
\t\t\tescaped = false
\t\tcase c == '\\\\':
\t\t\tescaped = true
\t\tcase c == '=':
\t\t\treturn key.String(), line[i+1:], nil
\t\tdefault:
\t\t\tkey.WriteRune(c)
\t\t}}
\t}}
\treturn "", "", ErrSyntax
}}
"""

TEST = """\
package {name}

import "testing"

func TestStore(t *testing.T) {{
\tvar s Store
\ts.Put(Record{{Key: "a", Value: 1}})
\tif r, ok := s.Get("a"); !ok || r.Value != 1 {{
\t\tt.Fatal(r)
\t}}
}}

func TestScale(t *testing.T) {{
\tif Scale([]int{{100}}, 3)[0] != 255 {{
\t\tt.Fatal("clamp")
\t}}
}}

func TestCodec(t *testing.T) {{
\tcases := []struct {{
\t\tname    string
\t\trecords []Record
\t}}{{
\t\t{{"empty", nil}},
\t\t{{"one", []Record{{{{Key: "a", Value: 1}}}}}},
\t\t{{"escaped", []Record{{{{Key: "a=b", Value: 2}}, {{Key: "c\\\\d", Value: 3}}}}}},
\t}}
\tfor _, c := range cases {{
\t\tt.Run(c.name, func(t *testing.T) {{
\t\t\tgot, err := Decode(Encode(c.records))
\t\t\tif err != nil {{
\t\t\t\tt.Fatal(err)
\t\t\t}}
\t\t\tif len(got) != len(c.records) {{
\t\t\t\tt.Fatalf("got %v, want %v", got, c.records)
\t\t\t}}
\t\t\tfor i := range got {{
\t\t\t\tif got[i] != c.records[i] {{
\t\t\t\t\tt.Fatalf("record %d: got %v, want %v", i, got[i], c.records[i])
\t\t\t\t}}
\t\t\t}}
\t\t}})
\t}}
}}

func BenchmarkPut(b *testing.B) {{
\tvar s Store
\tfor i := 0; i < b.N; i++ {{
\t\ts.Put(Record{{Key: "k"}})
\t}}
}}
"""


def package_name(index: int) -> str:
    return f"p{index:03d}"


def generate(root: Path, count: int) -> Path:
    """Write and commit the module in ``root`` (see the module docstring)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "go.mod").write_text("module example.com/gen\n\ngo 1.22\n")
    (root / "README.md").write_text("# gen\n\nA generated module.\n")
    for index in range(count):
        name = package_name(index)
        deps = sorted({d for d in (index - 1, index // 2) if 0 <= d < index})
        imports = "".join(f'\t"example.com/gen/pkg/{package_name(d)}"\n' for d in deps)
        uses = "".join(f" + {package_name(d)}.Combine()" for d in deps)
        fields = {"name": name, "index": index, "cap": name.capitalize(), "imports": imports,
                  "uses": uses}  # fmt: skip
        folder = root / "pkg" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "record.go").write_text(SOURCE.format(**fields))
        (folder / "store.go").write_text(STORE.format(**fields))
        (folder / "util.go").write_text(UTIL.format(**fields))
        (folder / "codec.go").write_text(CODEC.format(**fields))
        (folder / "store_test.go").write_text(TEST.format(**fields))
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "generated"], cwd=root, check=True)
    return root
