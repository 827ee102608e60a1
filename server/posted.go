package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
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

// parsePosted reads a suite sent in a request. Parsing looks at nothing but the body;
// then every database the suite names is resolved by the catalog of configured names:
// a path, or a name the server does not know, is rejected, so a request can neither
// open nor probe a file of its choosing. A posted suite may not call a target either:
// the generated queries come with it.
func (s *Server) parsePosted(name string, data []byte) (*posted, error) {
	st, err := suite.Parse(name, data, suiteOptions())
	if err != nil {
		return nil, &FieldError{Field: "suite", Err: err}
	}
	if st.Target != nil {
		return nil, invalid("target", "a suite sent to the server cannot call a target: put generated_query in each case, "+
			"or start the server with --suite NAME=PATH for a suite that calls one")
	}
	st.Path = ""
	p := &posted{suite: st, display: s.display(st, "")}
	cat := s.catalog(p)
	if err := suite.Check(context.Background(), st, cat); err != nil {
		// a name the server does not know is a problem of the request's body (400)
		return nil, &FieldError{Field: firstBadDatabase(st, cat), Err: &qeval.Error{Code: qeval.CodeInvalid, Message: qeval.ErrorMessage(err), Err: err}}
	}
	return p, nil
}

// firstBadDatabase names the field of the first database the catalog refuses.
func firstBadDatabase(st *qeval.Suite, cat *registry.Catalog) string {
	bad := func(name string) bool {
		_, err := cat.Resolve(context.Background(), name, st.Dialect)
		return name != "" && err != nil
	}
	if bad(st.Database) {
		return "database"
	}
	for i, c := range st.Cases {
		if bad(c.Database) {
			return fmt.Sprintf("cases[%d].database", i)
		}
	}
	return "database"
}
