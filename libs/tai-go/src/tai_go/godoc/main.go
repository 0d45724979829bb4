// Command tai-godoc renders the package documentation of many Go packages in one
// process, byte for byte as `go doc [-all] [-u] -cmd DIR` of the same toolchain prints
// it, so tai's Go context pays one process start, one module-root lookup and one
// parse per package instead of one `go doc` process (with its own `go env` and
// `go list -m` subprocesses) per package.
//
// Why a separate program and this shape:
//
//   - The Go side owns everything that must match `go doc` exactly: it uses the
//     toolchain's own go/build (file selection, import comments), go/parser, go/doc,
//     go/doc/comment and go/format, the libraries `go doc` is built from, so it is
//     built with the toolchain whose `go doc` it stands in for, and with -trimpath
//     when that toolchain's go command was (so go/build's default GOROOT is the same
//     in both); tai keys the binary by the toolchain's version and that choice.
//   - The source text comes from the caller, not the disk: each job carries the bytes
//     of the package's Go files as tai's load read them, so the documentation matches
//     the snapshot the model sees. The disk is only consulted by go/build for files the
//     job does not carry (tests, files excluded by constraints), to check that the
//     files `go doc` would pick are exactly the ones sent.
//   - Anything `go doc` would do differently or fail on (a different file selection,
//     a parse error, GOPATH mode, an unknown flag) is answered with a failure naming
//     the reason, and the caller runs the real `go doc` for that package: the helper
//     never has to reproduce go doc's error texts.
//
// Protocol (stdin to stdout, binary-safe, any number of jobs): a job is one JSON line
// {"target": GO_DOC_ARGUMENT, "dir": PACKAGE_DIR, "flags": [...], "names": [...],
// "sizes": [...]} followed by the bytes of the named files (base names in the package
// directory), concatenated. The target is what `go doc` would be given ("./dir" or an
// absolute directory); the helper finds the directory as go doc would and declines
// the job unless it is "dir". Answers come in job order: a JSON line {"ok": true,
// "size": N} followed by N bytes of documentation, or {"ok": false, "error": TEXT}.
// The program ends when stdin ends; jobs are rendered in parallel, each answer written
// as soon as it and those before it are ready (a caller may send more jobs after
// reading answers).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
)

// request is the header of one job.
type request struct {
	Target string   `json:"target"`
	Dir    string   `json:"dir"`
	Flags  []string `json:"flags"`
	Names  []string `json:"names"`
	Sizes  []int    `json:"sizes"`
}

// answer is the header of one result; the documentation follows it when OK.
type answer struct {
	OK    bool   `json:"ok"`
	Size  int    `json:"size,omitempty"`
	Error string `json:"error,omitempty"`
}

type result struct {
	text []byte
	err  error
}

func main() {
	// Parsing and printing allocate much and keep little: collect garbage less often
	// (a few times the live heap, tens of megabytes for a large module).
	debug.SetGCPercent(400)
	// The caller works on (in Python) while the helper renders: leave it a core.
	if os.Getenv("GOMAXPROCS") == "" && runtime.NumCPU() > 1 {
		runtime.GOMAXPROCS(runtime.NumCPU() - 1)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	results := make(chan chan result, 4096)
	done := make(chan struct{})
	go func() {
		writeAnswers(out, results)
		close(done)
	}()
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var readErr error
	for {
		job, files, err := readJob(in)
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
		slot := make(chan result, 1)
		results <- slot
		slots <- struct{}{}
		go func(job request, files map[string][]byte, slot chan result) {
			defer func() { <-slots }()
			text, err := render(job, files)
			slot <- result{text, err}
		}(job, files, slot)
	}
	close(results)
	<-done
	if readErr != nil {
		fmt.Fprintf(os.Stderr, "tai-godoc: reading jobs: %v\n", readErr)
		os.Exit(2)
	}
}

// readJob reads one job: its header line and the bytes of its files.
func readJob(in *bufio.Reader) (request, map[string][]byte, error) {
	var job request
	line, err := in.ReadBytes('\n')
	if err == io.EOF && len(line) == 0 {
		return job, nil, io.EOF
	}
	if err != nil {
		return job, nil, err
	}
	if err := json.Unmarshal(line, &job); err != nil {
		return job, nil, err
	}
	if len(job.Names) != len(job.Sizes) {
		return job, nil, fmt.Errorf("job for %s: %d names, %d sizes", job.Dir, len(job.Names), len(job.Sizes))
	}
	files := make(map[string][]byte, len(job.Names))
	for i, name := range job.Names {
		data := make([]byte, job.Sizes[i])
		if _, err := io.ReadFull(in, data); err != nil {
			return job, nil, err
		}
		files[name] = data
	}
	return job, files, nil
}

// writeAnswers writes each result as soon as it and all before it are done, flushing
// whenever the next one is not ready yet, so a caller waiting for one answer gets it.
func writeAnswers(out *bufio.Writer, results chan chan result) {
	for slot := range results {
		var got result
		select {
		case got = <-slot:
		default:
			out.Flush()
			got = <-slot
		}
		head := answer{OK: got.err == nil, Size: len(got.text)}
		if got.err != nil {
			head = answer{Error: got.err.Error()}
		}
		line, _ := json.Marshal(head)
		out.Write(append(line, '\n'))
		if got.err == nil {
			out.Write(got.text)
		}
		if len(results) == 0 {
			out.Flush()
		}
	}
	out.Flush()
}
