package suite_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/qeval/qeval/suite"
)

// A CSV row is cut out before it is parsed: quoted fields with commas, quotes and line
// ends, CRLF and blank lines read as encoding/csv reads them, and each case keeps the
// line it starts on; a bad row is a problem at its line, and the rows after it are read.
func TestCSV_RowsAndLines(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "s.csv", "id,question,expected_query\r\n"+
		"a,\"Which, of \"\"them\"\"?\",\"SELECT 1\nUNION SELECT 2\"\r\n"+
		"\n"+
		"b,plain,SELECT 3\n"+
		"c,\"no end\"x,SELECT 4\n"+
		"d,last,SELECT 5")
	_, err := suite.Load(path, suite.Options{})
	if err == nil || !strings.Contains(err.Error(), path+`:6:`) || strings.Count(err.Error(), "\n  - ") != 1 {
		t.Fatalf("a bad row at line 6: %v", err)
	}
	good := write(t, dir, "good.csv", "id,question,expected_query\r\n"+
		"a,\"Which, of \"\"them\"\"?\",\"SELECT 1\nUNION SELECT 2\"\r\n"+
		"\n"+
		"b,plain,SELECT 3\n"+
		"d,last,SELECT 5")
	s, err := suite.Load(good, suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 3 || s.Cases[0].Question != `Which, of "them"?` || s.Cases[0].ExpectedQuery != "SELECT 1\nUNION SELECT 2" ||
		s.Cases[1].Line != 5 || s.Cases[2].ID != "d" || s.Cases[2].Line != 6 {
		t.Errorf("cases %+v", s.Cases)
	}
}

// A field longer than a case may be is read past, not held: encoding/csv held the row
// whole, and a 200 MB field cost 1 GB before its case was refused. The row is a
// problem that names its line, and the rows after it are read.
func TestCSV_LongFieldReadPast(t *testing.T) {
	dir := t.TempDir()
	field := strings.Repeat("x", 64<<20)
	path := write(t, dir, "s.csv", "id,expected_query\n"+
		"a,SELECT 1\n"+
		"big,\"SELECT '"+field+"'\"\n"+
		"c,\"not closed\"x\n")
	field = ""
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := suite.Open(path, suite.Options{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), path+":3: the row is longer than 8388608 bytes") || !strings.Contains(err.Error(), path+":4:") {
		t.Errorf("a 64 MB field: %v, want the row at line 3 and the bad row at line 4 named", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*suite.MaxCaseBytes {
		t.Errorf("reading the suite allocated %d MB, want under %d MB", alloc>>20, 4*suite.MaxCaseBytes>>20)
	}
}
