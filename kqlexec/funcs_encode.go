package kqlexec

import (
	"encoding/hex"
	"net/url"
	"strings"

	"github.com/qeval/qeval/internal/lazyregexp"
)

// Helpers for hashing, GUID bytes, URLs and paths.

// hashText is the text a hash function reads for a value.
func hashText(v any) string {
	switch x := v.(type) {
	case Datetime:
		return x.String()
	}
	return toString(v)
}

func guidBytes(g Guid) []byte {
	h, _ := hex.DecodeString(strings.ReplaceAll(string(g), "-", ""))
	if len(h) != 16 {
		return nil
	}
	// .NET's Guid byte order: the first three groups little-endian
	b := make([]byte, 16)
	b[0], b[1], b[2], b[3] = h[3], h[2], h[1], h[0]
	b[4], b[5] = h[5], h[4]
	b[6], b[7] = h[7], h[6]
	copy(b[8:], h[8:])
	return b
}

func guidFromBytes(b []byte) Guid {
	h := make([]byte, 16)
	h[0], h[1], h[2], h[3] = b[3], b[2], b[1], b[0]
	h[4], h[5] = b[5], b[4]
	h[6], h[7] = b[7], b[6]
	copy(h[8:], b[8:])
	g, _ := parseGuid(hex.EncodeToString(h))
	return g
}

func parseURL(a []any) any {
	u, err := url.Parse(str(a, 0))
	if err != nil || u.Scheme == "" {
		return Dyn{map[string]any{}}
	}
	q := map[string]any{}
	for k, v := range u.Query() {
		q[k] = v[len(v)-1]
	}
	pw, _ := u.User.Password()
	return Dyn{map[string]any{
		"Scheme": u.Scheme, "Host": u.Hostname(), "Port": u.Port(), "Path": u.Path,
		"Username": u.User.Username(), "Password": pw, "Query Parameters": q, "Fragment": u.Fragment,
	}}
}

// parsePath splits a file path as Kusto's parse_path does: an optional scheme
// (file://…), the long-path prefix \\?\ dropped, a drive (C:) as the root, either
// slash as a separator, and an alternate data stream after a colon in the file name.
func parsePath(a []any) any {
	p := str(a, 0)
	scheme := ""
	if m := schemeRE.FindStringSubmatch(p); m != nil {
		scheme, p = m[1], p[len(m[0]):]
	}
	p = strings.TrimPrefix(p, `\\?\`)
	root := ""
	if len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') {
		root = p[:2]
	}
	dir, file := "", p
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		dir, file = p[:i], p[i+1:]
	} else if root != "" {
		file = p[2:]
	}
	stream := ""
	if i := strings.IndexByte(file, ':'); i >= 0 {
		file, stream = file[:i], file[i+1:]
	}
	ext := ""
	if i := strings.LastIndex(file, "."); i >= 0 {
		ext = file[i+1:]
	}
	name := dir
	if i := strings.LastIndexAny(dir, `/\`); i >= 0 {
		name = dir[i+1:]
	}
	return Dyn{map[string]any{"Scheme": scheme, "RootPath": root, "DirectoryPath": dir, "DirectoryName": name, "Filename": file, "Extension": ext,
		"AlternateDataStreamName": stream}}
}

var schemeRE = lazyregexp.New(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// urlEncode escapes as .NET's HttpUtility.UrlEncode does: lower-case hex, letters,
// digits and -_.!*() kept, space written as given.
func urlEncode(s, space string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-_.!*()", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteString(space)
		default:
			b.WriteString("%" + hex.EncodeToString([]byte{c}))
		}
	}
	return b.String()
}
