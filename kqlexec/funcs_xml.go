package kqlexec

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// maxXMLBytes is the longest text parse_xml reads (Kusto's limit): longer is null;
// maxXMLDepth bounds the nesting it follows (deeper is null too).
const (
	maxXMLBytes = 1 << 20
	maxXMLDepth = 1000
)

// xmlFuncs defines parse_xml.
func xmlFuncs(def func(string, *fnDef)) {
	// parse_xml(s): the document as a bag, by the reference's rules: an element is
	// null when empty, its text when it has only text, else a bag of "@attribute"
	// values, child elements (a list when a name repeats) and "#text"; null for
	// text that is not XML
	def("parse_xml", fixed(TDynamic, func(a []any) any {
		s, ok := a[0].(string)
		if !ok || len(s) > maxXMLBytes {
			return nil
		}
		v, err := parseXML(s)
		if err != nil {
			return nil
		}
		return Dyn{v}
	}, TString))
}

// parseXML converts a document's root element.
func parseXML(s string) (any, error) {
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		if se, ok := tok.(xml.StartElement); ok {
			v, err := xmlElement(d, se, 1)
			if err != nil {
				return nil, err
			}
			// nothing but whitespace, comments or processing instructions may follow
			for {
				tok, err := d.Token()
				if errors.Is(err, io.EOF) {
					return map[string]any{se.Name.Local: v}, nil
				}
				if err != nil {
					return nil, err
				}
				if _, ok := tok.(xml.StartElement); ok {
					return nil, errors.New("two root elements")
				}
			}
		}
	}
}

// xmlElement converts one element whose start tag was read.
func xmlElement(d *xml.Decoder, se xml.StartElement, depth int) (any, error) {
	if depth > maxXMLDepth {
		return nil, errors.New("nested too deeply")
	}
	bag := map[string]any{}
	for _, at := range se.Attr {
		bag["@"+at.Name.Local] = at.Value
	}
	var text strings.Builder
	children := false
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			v, err := xmlElement(d, t, depth+1)
			if err != nil {
				return nil, err
			}
			children = true
			name := t.Name.Local
			switch prev, seen := bag[name]; {
			case !seen:
				bag[name] = v
			default:
				if l, isList := prev.([]any); isList {
					bag[name] = append(l, v)
				} else {
					bag[name] = []any{prev, v}
				}
			}
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			txt := strings.TrimSpace(text.String())
			switch {
			case !children && len(se.Attr) == 0 && txt == "":
				return nil, nil
			case !children && len(se.Attr) == 0:
				return txt, nil
			}
			if txt != "" {
				bag["#text"] = txt
			}
			return bag, nil
		}
	}
}
