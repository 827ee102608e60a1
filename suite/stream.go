package suite

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lines"
)

// Open is Load, except that a JSONL or CSV suite's cases are not held: one pass reads
// and checks them all as Load does (every problem reported at once), and the suite's
// Stream reads them from the file again each time they are walked. A run of 200,000
// cases then holds the cases in flight, not 200,000 of them. Other formats are loaded.
func Open(path string, opt Options) (*qeval.Suite, error) {
	var each func(io.Reader, *problems, func(qeval.Case) error) error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl":
		first, err := firstNonBlankLine(path)
		if err != nil {
			return nil, err
		}
		if isNL2KQL(first) || isCritic(first) {
			return Load(path, opt)
		}
		each = eachJSONL
	case ".csv":
		each = eachCSV
	default:
		return Load(path, opt)
	}
	s := opt.Defaults
	s.Cases = nil
	s.Path = path
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	st := &fileStream{path: path, each: each}
	s.Stream = st
	p := &problems{file: path}
	check(&s, p, opt)
	cc := caseChecker{ids: map[string]int{}, notSQL: strings.EqualFold(s.Dialect, "kql") || strings.EqualFold(s.Dialect, qeval.DialectMalloy)}
	if err := st.read(p, func(i int, c qeval.Case) error {
		cc.check(i, &c, p)
		st.n++
		return nil
	}); err != nil && err != errNoHeader {
		return nil, err
	}
	if st.n == 0 && len(p.list) == 0 {
		p.add(0, "", "the suite has no cases")
	}
	if len(p.list) > 0 {
		return nil, p.err()
	}
	return &s, nil
}

// firstNonBlankLine is the first line of the file that is not blank.
func firstNonBlankLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open suite " + path, Message: "no such file", Err: err}
	}
	defer f.Close()
	sc := lines.NewMax(f, MaxCaseBytes)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			return l, nil
		}
	}
	return nil, sc.Err()
}

// fileStream reads a checked JSONL or CSV suite's cases from its file.
type fileStream struct {
	path string
	n    int
	each func(io.Reader, *problems, func(qeval.Case) error) error // eachJSONL or eachCSV
}

func (st *fileStream) Len() int { return st.n }

// Each reads the cases again; a file changed since it was checked is an error that
// names the line, and the walk stops there.
func (st *fileStream) Each(fn func(i int, c qeval.Case) error) error {
	p := &problems{file: st.path}
	cc := caseChecker{} // ids were checked once; they are only filled in again
	i := 0
	err := st.read(p, func(_ int, c qeval.Case) error {
		cc.check(i, &c, p)
		if len(p.list) > 0 {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "read suite " + st.path,
				Message: fmt.Sprintf("the file changed since the run started: %s", qeval.ErrorMessage(p.err()))}
		}
		if i >= st.n {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "read suite " + st.path,
				Message: fmt.Sprintf("the file changed since the run started: it has more than %d cases", st.n)}
		}
		err := fn(i, c)
		i++
		return err
	})
	if (err == nil || err == errNoHeader) && len(p.list) > 0 {
		err = &qeval.Error{Code: qeval.CodeInvalid, Op: "read suite " + st.path,
			Message: fmt.Sprintf("the file changed since the run started: %s", qeval.ErrorMessage(p.err()))}
	}
	return err
}

// read walks the file's cases, numbering them from 0.
func (st *fileStream) read(p *problems, fn func(i int, c qeval.Case) error) error {
	f, err := os.Open(st.path)
	if err != nil {
		return &qeval.Error{Code: qeval.CodeNotFound, Op: "open suite " + st.path, Message: "no such file", Err: err}
	}
	defer f.Close()
	i := 0
	var fnErr error
	err = st.each(f, p, func(c qeval.Case) error {
		fnErr = fn(i, c)
		i++
		return fnErr
	})
	if err != nil && err != fnErr && err != errNoHeader {
		// the file could not be read: fn's own errors are returned as they are
		err = &qeval.Error{Code: qeval.CodeInvalid, Op: "read suite " + st.path, Message: err.Error(), Err: err}
	}
	return err
}
