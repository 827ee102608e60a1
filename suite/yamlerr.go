package suite

import (
	"bytes"
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval/internal/lazyregexp"
	"go.yaml.in/yaml/v3"
)

// yamlLine is the position the YAML parser puts in front of its message.
var yamlLine = lazyregexp.New(`^line (\d+): `)

// yamlSyntaxError is the line and message of a YAML syntax error. The parser names the
// line where the construct it was reading began (an indentation slip on line 10 of a
// case list is reported at the list's line 3); the line that broke it is the first
// whose prefix of the document fails with the same message, found by bisection.
func yamlSyntaxError(data []byte, err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return 0, msg
	}
	reported, _ := strconv.Atoi(m[1])
	msg = msg[len(m[0]):]
	ends := lineEnds(data)
	if reported < 1 || reported > len(ends) {
		return reported, msg
	}
	fails := func(k int) bool { // the first k lines alone fail with the same message
		var doc yaml.Node
		err := yaml.Unmarshal(data[:ends[k-1]], &doc)
		return err != nil && strings.HasSuffix(err.Error(), ": "+msg)
	}
	k := reported + sort.Search(len(ends)-reported+1, func(i int) bool { return fails(reported + i) })
	if k > len(ends) {
		return reported, msg
	}
	return k, msg
}

// lineEnds are the offsets just past each line of data (its newline included).
func lineEnds(data []byte) []int {
	var ends []int
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			ends = append(ends, len(data))
			break
		}
		off += i + 1
		ends = append(ends, off)
	}
	return ends
}
