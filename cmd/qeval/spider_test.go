package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/internal/testdata"
)

const exampleDir = "../../examples/spider"

func TestSpider_Example(t *testing.T) {
	items := filepath.Join(t.TempDir(), "items.jsonl")
	code, out, stderr := runCLI(t, "", "spider", "--gold", exampleDir+"/gold.sql", "--pred", exampleDir+"/pred.txt",
		"--db", exampleDir+"/database", "--items", items)
	if code != exitOK {
		t.Fatalf("code %d, stderr %s", code, stderr)
	}
	if !strings.Contains(out, "=====================   EXECUTION ACCURACY     =====================") {
		t.Errorf("no official table:\n%s", out)
	}
	f, err := os.Open(items)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, right := 0, 0
	for sc.Scan() {
		var it map[string]any
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatalf("items line %d: %v", n+1, err)
		}
		for _, k := range []string{"index", "db_id", "hardness", "exec", "outcome", "error", "mode", "pred_ms", "gold_ms"} {
			if _, ok := it[k]; !ok {
				t.Errorf("items line %d lacks %q: %s", n+1, k, sc.Text())
			}
		}
		if int(it["index"].(float64)) != n || it["mode"] != "spider-ts@1" {
			t.Errorf("items line %d: %s", n+1, sc.Text())
		}
		if it["exec"] == true {
			right++
			if it["outcome"] != "match" || it["error"] != nil {
				t.Errorf("items line %d: exec true but %s", n+1, sc.Text())
			}
		}
		n++
	}
	if n != 50 {
		t.Fatalf("%d items, want 50", n)
	}
	// the "all" execution cell agrees with the items file
	fields := strings.Fields(strings.Split(strings.Split(out, "execution")[1], "\n")[0])
	if got := fields[len(fields)-1]; got != fmtAcc(right, n) {
		t.Errorf("table says %s, items say %d/%d", got, right, n)
	}
}

func fmtAcc(right, n int) string { return fmt.Sprintf("%.3f", float64(right)/float64(n)) }

func TestSpider_UsageErrors(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.sql", "SELECT 1\tconcert_singer\nSELECT 2\tconcert_singer\n")
	pred := writeFile(t, dir, "pred.txt", "SELECT 1\n")
	badGold := writeFile(t, dir, "bad.sql", "SELECT 1 concert_singer\nSELECT 2\tconcert_singer\n")
	pred2 := writeFile(t, dir, "pred2.txt", "SELECT 1\nSELECT 2\n")
	// gold the official parser cannot read: no item waits for tables.json's keys
	unread := writeFile(t, dir, "unread.sql", "SELECT nope FROM singer\tconcert_singer\nSELECT FROM\tconcert_singer\n")
	for _, c := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"Missing", []string{"spider", "--gold", gold}, exitUsage, "missing --db, --pred"},
		{"Counts", []string{"spider", "--gold", gold, "--pred", pred, "--db", exampleDir + "/database"}, exitUsage, "has 1 queries in 1 interactions but --gold " + gold + " has 2 queries"},
		{"NoTab", []string{"spider", "--gold", badGold, "--pred", pred2, "--db", exampleDir + "/database"}, exitUsage, "bad.sql:1: want `SQL<TAB>db_id`, found 1 TAB-separated fields"},
		{"NoDB", []string{"spider", "--gold", gold, "--pred", pred2, "--db", dir + "/nowhere"}, exitFailed, "no such folder"},
		{"Mode", []string{"spider", "--gold", gold, "--pred", pred2, "--db", exampleDir + "/database", "--mode", "bagg"}, exitUsage, `unknown comparison mode "bagg" (known: bag, bird-ex, ordered, spider-ts, spider2, spider2-strict, subset)`},
		{"Etype", []string{"spider", "--gold", gold, "--pred", pred2, "--db", exampleDir + "/database", "--etype", "exact"}, exitUsage, "--etype exact is not an evaluation type"},
		{"MatchNeedsTable", []string{"spider", "--gold", gold, "--pred", pred2, "--db", exampleDir + "/database", "--etype", "match"}, exitUsage, "--etype match needs --table"},
		{"BrokenTable", []string{"spider", "--gold", gold, "--pred", pred2, "--db", exampleDir + "/database", "--etype", "all", "--table", pred2}, exitUsage, "read --table " + pred2},
		{"BrokenTableNoGoldParsed", []string{"spider", "--gold", unread, "--pred", pred2, "--db", exampleDir + "/database", "--etype", "match", "--table", pred2}, exitUsage, "read --table " + pred2},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", c.args...)
			if code != c.code || !strings.Contains(stderr, c.msg) {
				t.Errorf("code %d, want %d; stderr %q, want it to contain %q", code, c.code, stderr, c.msg)
			}
		})
	}
}

// A gold query that fails is that item's gold_error; the others are judged.
func TestSpider_GoldErrorDoesNotAbort(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.sql", "SELECT count(*) FROM singer\tconcert_singer\nSELECT nope FROM singer\tconcert_singer\nSELECT 1\tmissing_db\n")
	pred := writeFile(t, dir, "pred.txt", "SELECT count(*) FROM singer\nSELECT 1\nSELECT 1\n")
	code, out, stderr := runCLI(t, "", "spider", "--gold", gold, "--pred", pred, "--db", exampleDir+"/database", "--json")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	var rep struct {
		Correct  int            `json:"correct"`
		Total    int            `json:"total"`
		Outcomes map[string]int `json:"outcomes"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Correct != 1 || rep.Total != 3 || rep.Outcomes["gold_error"] != 2 || rep.Outcomes["match"] != 1 {
		t.Errorf("report %+v", rep)
	}
	if !strings.Contains(stderr, "2 gold queries failed") {
		t.Errorf("stderr %q", stderr)
	}
}

// Interaction files (SParC/CoSQL): blank lines separate interactions; turn and joint
// accuracy are reported as the official evaluator does.
func TestSpider_Interactions(t *testing.T) {
	dir := t.TempDir()
	g := "SELECT count(*) FROM singer\tconcert_singer\nSELECT name FROM singer\tconcert_singer\n\n" +
		"SELECT count(*) FROM stadium\tconcert_singer\n\nSELECT 1\tconcert_singer\nSELECT 2\tconcert_singer\nSELECT 3\tconcert_singer\nSELECT 4\tconcert_singer\nSELECT 5\tconcert_singer\n"
	p := "SELECT count(*) FROM singer\nSELECT name FROM singer WHERE 0\n\nSELECT count(*) FROM stadium\n\nSELECT 1\nSELECT 2\nSELECT 3\nSELECT 4\nSELECT 5\n"
	gold, pred := writeFile(t, dir, "gold.sql", g), writeFile(t, dir, "pred.txt", p)
	code, out, stderr := runCLI(t, "", "spider", "--gold", gold, "--pred", pred, "--db", exampleDir+"/database")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	for _, want := range []string{"joint_all", "TURN EXECUTION ACCURACY", "turn > 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, stderr = runCLI(t, "", "spider", "--gold", gold, "--pred", pred, "--db", exampleDir+"/database", "--json")
	if code != exitOK {
		t.Fatalf("--json: code %d: %s", code, stderr)
	}
	var rep struct {
		Levels map[string]struct {
			Count int     `json:"count"`
			Exec  float64 `json:"exec"`
		} `json:"levels"`
		Turns map[string]struct {
			Count int     `json:"count"`
			Exec  float64 `json:"exec"`
		} `json:"turns"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if j := rep.Levels["joint_all"]; j.Count != 3 || j.Exec < 0.66 || j.Exec > 0.67 {
		t.Errorf("joint_all = %+v, want 2 of 3 interactions", j)
	}
	if t2 := rep.Turns["turn 2"]; t2.Count != 2 || t2.Exec != 0.5 {
		t.Errorf("turn 2 = %+v, want 1 of 2", t2)
	}
	if t5 := rep.Turns["turn > 4"]; t5.Count != 1 || t5.Exec != 1 {
		t.Errorf("turn > 4 = %+v", t5)
	}
}

// The table of a full run equals the official evaluator's printout for the same files.
func TestSpider_OfficialTable(t *testing.T) {
	data := testdata.SharedDir(t)
	for _, set := range []string{"dailsql_gpt4", "spider_pred_example"} {
		sp := filepath.Join(data, "spider")
		code, out, stderr := runCLI(t, "", "spider", "--gold", sp+"/dev_gold_no_wta1.sql", "--pred", sp+"/predictions/"+set+"_no_wta1.txt",
			"--db", sp+"/database", "--table", sp+"/tables.json")
		if code != exitOK {
			t.Fatalf("%s: code %d: %s", set, code, stderr)
		}
		want, err := os.ReadFile(filepath.Join(sp, "oracle", "official_output", set+".exec.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("%s: table differs from the official printout\n got:\n%s\nwant:\n%s", set, out, want)
		}
	}
}

// With --etype all --print-mismatches the output is the official evaluator's whole
// printout (its progress lines aside) for the same files: the mismatch blocks, the
// execution, exact and partial matching tables.
func TestSpider_OfficialAll(t *testing.T) {
	data := testdata.SharedDir(t)
	sp := filepath.Join(data, "spider")
	for _, set := range []string{"gold_as_pred", "dailsql_gpt4", "c3_chatgpt", "graphix", "dinsql_gpt4_zero_shot", "spider_pred_example"} {
		t.Run(set, func(t *testing.T) {
			pred := sp + "/predictions/" + set + "_no_wta1.txt"
			if set == "gold_as_pred" {
				pred = sp + "/dev_gold_no_wta1.sql"
			}
			code, out, stderr := runCLI(t, "", "spider", "--etype", "all", "--print-mismatches", "--gold", sp+"/dev_gold_no_wta1.sql",
				"--pred", pred, "--db", sp+"/database", "--table", sp+"/tables.json")
			if code != exitOK {
				t.Fatalf("code %d: %s", code, stderr)
			}
			want, err := os.ReadFile(filepath.Join(sp, "oracle", "official_output", set+".all.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				gl, wl := strings.Split(out, "\n"), strings.Split(string(want), "\n")
				for i := 0; i < len(gl) && i < len(wl); i++ {
					if gl[i] != wl[i] {
						t.Fatalf("line %d differs from the official printout:\n got %q\nwant %q", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("%d lines, official %d", len(gl), len(wl))
			}
		})
	}
}

// --etype match scores without running a query; each item carries its exact verdict and
// partial scores.
func TestSpider_MatchItems(t *testing.T) {
	items := filepath.Join(t.TempDir(), "items.jsonl")
	code, out, stderr := runCLI(t, "", "spider", "--etype", "match", "--table", exampleDir+"/tables.json", "--gold", exampleDir+"/gold.sql",
		"--pred", exampleDir+"/pred.txt", "--db", exampleDir+"/database", "--items", items)
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if strings.Contains(out, "EXECUTION") || !strings.Contains(out, "EXACT MATCHING ACCURACY") {
		t.Errorf("match table expected without execution rows:\n%s", out)
	}
	b, err := os.ReadFile(items)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 50 {
		t.Fatalf("%d items, want 50", len(lines))
	}
	exact := 0
	for i, l := range lines {
		var it struct {
			Exact   *bool                         `json:"exact"`
			Exec    *bool                         `json:"exec"`
			Partial map[string]map[string]float64 `json:"partial"`
		}
		if err := json.Unmarshal([]byte(l), &it); err != nil {
			t.Fatal(err)
		}
		if it.Exact == nil || it.Exec != nil || len(it.Partial) != 10 {
			t.Fatalf("item %d: %s", i, l)
		}
		if *it.Exact {
			exact++
		}
	}
	fields := strings.Fields(strings.Split(strings.Split(out, "exact match")[1], "\n")[0])
	if got := fields[len(fields)-1]; got != fmtAcc(exact, 50) {
		t.Errorf("table says %s, items say %d/50", got, exact)
	}
}
