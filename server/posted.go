package server

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/suite"
)

// suiteFromRequest reads the suite of POST /api/runs: JSON or YAML (a suite, or
// {"suite": NAME} for a configured one), or a multipart form whose "suite" field is
// a file or a configured suite's name.
func (s *Server) suiteFromRequest(r *http.Request) (*posted, error) {
	ct := strings.ToLower(strings.TrimSpace(strings.Split(r.Header.Get("Content-Type"), ";")[0]))
	switch ct {
	case "application/json", "":
		data, err := readBody(r.Body)
		if err != nil {
			return nil, err
		}
		return s.suiteFromDocument("suite.json", data)
	case "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml":
		data, err := readBody(r.Body)
		if err != nil {
			return nil, err
		}
		return s.suiteFromDocument("suite.yaml", data)
	case "multipart/form-data":
		return s.suiteFromForm(r)
	}
	return nil, &qeval.Error{Code: codeMediaType, Message: "unsupported Content-Type " + ct,
		Hint: "send the suite as application/json or application/yaml, or upload it as multipart/form-data (field \"suite\")"}
}

// readBody reads a whole body (already limited in size); an empty one is an error.
func readBody(body io.Reader) ([]byte, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(mbe.Limit)
		}
		return nil, invalid("", "read the request body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, invalid("", "the body is empty: send a suite, or {\"suite\": NAME} for one the server was started with")
	}
	return data, nil
}

// suiteFromForm reads the "suite" field of a multipart form: a file, or a name.
func (s *Server) suiteFromForm(r *http.Request) (*posted, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, invalid("", "malformed multipart form: %v", err)
	}
	var got *posted
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, tooLarge(mbe.Limit)
			}
			return nil, invalid("", "malformed multipart form: %v", err)
		}
		if part.FormName() != "suite" {
			return nil, invalid(part.FormName(), "unknown form field %q (send the suite file as \"suite\")", part.FormName())
		}
		if got != nil {
			return nil, invalid("suite", "send one suite per run")
		}
		data, err := readBody(part)
		if err != nil {
			return nil, &FieldError{Field: "suite", Err: err}
		}
		if part.FileName() == "" {
			got, err = s.configuredSuite(strings.TrimSpace(string(data)))
		} else {
			got, err = s.parsePosted(uploadName(part.FileName()), data)
		}
		if err != nil {
			return nil, err
		}
	}
	if got == nil {
		return nil, invalid("suite", "no suite in the form: upload the file as the field \"suite\"")
	}
	return got, nil
}

// uploadName keeps the base name of an uploaded file (for its format and the suite's
// default name); the client's folders mean nothing here.
func uploadName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	if name == "." || name == "/" || name == ".." {
		name = "suite"
	}
	return name
}

// suiteFromDocument reads a JSON or YAML body: {"suite": NAME} names a configured
// suite; anything else is a suite. The server's judge grades every run; a judge
// block in a suite is left unused.
func (s *Server) suiteFromDocument(name string, data []byte) (*posted, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		root := doc.Content[0]
		if ref := child(root, "suite"); ref != nil {
			for i := 0; i+1 < len(root.Content); i += 2 {
				if k := root.Content[i].Value; k != "suite" {
					return nil, invalid(k, "unknown field %q: send {\"suite\": NAME} alone to run a suite the server was started with", k)
				}
			}
			if ref.Kind != yaml.ScalarNode || ref.Tag != "!!str" {
				return nil, invalid("suite", "suite must be a string: the name of a suite the server was started with")
			}
			return s.configuredSuite(ref.Value)
		}
	}
	return s.parsePosted(name, data)
}

// child returns the value of key in a mapping node, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// parsePosted reads a suite sent in a request. Before the suite is parsed (which
// would look at files), every database it names is checked against the configured
// names: a path, or a name the server does not know, is rejected with the field
// that holds it, so a request can neither open nor probe a file of its choosing. A
// posted suite may not call a target either: the generated queries come with it.
func (s *Server) parsePosted(name string, data []byte) (*posted, error) {
	refs, err := scanSuite(name, data)
	if err != nil {
		return nil, err
	}
	conns := map[string]bool{}
	display := map[string]string{}
	for _, ref := range refs {
		if ref.name == "" {
			continue
		}
		p, err := s.resolveDB(ref.field, ref.name)
		if err != nil {
			return nil, err
		}
		conns[ref.name] = true
		display[p] = ref.name
	}
	st, err := suite.Parse(name, data, suiteOptions(conns))
	if err != nil {
		return nil, &FieldError{Field: "suite", Err: err}
	}
	// Every database the parsed suite names must be one checked above; anything else
	// means the scan and the parser disagree, and the suite is refused.
	for _, db := range append([]string{st.Database}, caseDatabases(st)...) {
		if db != "" && !conns[db] {
			return nil, invalid("suite", "the suite names database %q in a form the server cannot check; write it as a plain string", db)
		}
	}
	if st.Database != "" {
		st.Database = s.dbs[st.Database]
	}
	for i := range st.Cases {
		if db := st.Cases[i].Database; db != "" {
			st.Cases[i].Database = s.dbs[db]
		}
	}
	st.Path = ""
	return &posted{suite: st, display: display}, nil
}

// resolveDB returns the path of a configured database name.
func (s *Server) resolveDB(field, name string) (string, error) {
	if p, ok := s.dbs[name]; ok {
		return p, nil
	}
	known := "none: start the server with --db NAME=PATH"
	if len(s.dbNames) > 0 {
		known = strings.Join(s.dbNames, ", ")
	}
	if strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") || filepath.IsAbs(name) {
		return "", invalid(field, "%q is a path; a suite sent to the server names its database by a name the server was started with (known: %s)", name, known)
	}
	return "", invalid(field, "unknown database %q (known: %s)", name, known)
}

// dbRef is a database name found in a suite, and the field that holds it.
type dbRef struct{ field, name string }

// lightSuite is the part of a suite document read before parsing it for real.
// yaml.Node values keep each scalar exactly as written, as the suite parser reads it;
// decoding applies anchors and merge keys, as the suite parser does.
type lightSuite struct {
	Database yaml.Node   `yaml:"database"`
	Target   yaml.Node   `yaml:"target"`
	Cases    []lightCase `yaml:"cases"`
}

// lightCase is the part of a case read before parsing.
type lightCase struct {
	Database yaml.Node `yaml:"database"`
}

// scanSuite finds the database names of a suite in any format, and rejects a target.
func scanSuite(name string, data []byte) ([]dbRef, error) {
	var refs []dbRef
	// Each name is decoded from its node as the suite parser decodes it (a !!binary
	// scalar included), so the names checked are the names that parser will see.
	scalar := func(field string, n yaml.Node) {
		var v string
		if n.Kind == yaml.ScalarNode && n.Decode(&v) == nil && v != "" {
			refs = append(refs, dbRef{field, v})
		}
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		var ls lightSuite
		yaml.Unmarshal(data, &ls) // the suite parser reports what is malformed
		if ls.Target.Kind != 0 {
			return nil, invalid("target", "a suite sent to the server cannot call a target: put generated_query in each case, "+
				"or start the server with --suite NAME=PATH for a suite that calls one")
		}
		scalar("database", ls.Database)
		for i, c := range ls.Cases {
			scalar(fmt.Sprintf("cases[%d].database", i), c.Database)
		}
	case ".jsonl":
		i := 0
		for _, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 || bytes.HasPrefix(line, []byte("//")) {
				continue
			}
			var c lightCase
			yaml.Unmarshal(line, &c)
			scalar(fmt.Sprintf("cases[%d].database", i), c.Database)
			i++
		}
	case ".csv":
		r := csv.NewReader(bytes.NewReader(data))
		r.FieldsPerRecord = -1
		header, err := r.Read()
		if err != nil {
			return nil, nil
		}
		col := -1
		for i, h := range header {
			if strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))) == "database" {
				col = i
			}
		}
		for i := 0; ; i++ {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				continue
			}
			if col >= 0 && col < len(rec) {
				if db := strings.TrimSpace(rec[col]); db != "" {
					refs = append(refs, dbRef{fmt.Sprintf("cases[%d].database", i), db})
				}
			}
		}
	}
	return refs, nil
}

// caseDatabases returns the database of each case.
func caseDatabases(st *qeval.Suite) []string {
	out := make([]string, len(st.Cases))
	for i, c := range st.Cases {
		out[i] = c.Database
	}
	return out
}
