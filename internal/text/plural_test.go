package text

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/internal/srclit"
)

func TestCount(t *testing.T) {
	cases := map[string]string{
		Count(1, "line"): "1 line", Count(0, "line"): "0 lines", Count(1204, "event"): "1,204 events",
		Count(int64(-1), "RV"): "-1 RVs", Count(uint64(2), "watch"): "2 watches", Count(1, "watch"): "1 watch",
		Count(2, "retry"): "2 retries", Count(1, "retry"): "1 retry", Count(0, "entry"): "0 entries",
		Count(3, "family"): "3 families", Count(2, "status"): "2 statuses", Count(2, "class"): "2 classes",
		Count(2, "key"): "2 keys", Count(2, "day"): "2 days", Noun(2, "retry"): "retries", Noun(1, "family"): "family",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

// countedNoun: a format verb, then a countable noun in the plural ("%d
// lines", "%s events"): "1 lines" when the count is 1. Count is the rule.
var countedNoun = regexp.MustCompile(`%[0-9]*[ds] (?:more |consistent )?(?:line|event|request|item|page|object|byte|error|kind|resource|file|client|list|watche|relist|time|round|attempt|digit|RV|server|change|input|probe|stream|pattern|row|target|minute|second|retrie|gap|reconnect|collision|duplicate|entrie|finding|group|note|initialization)s\b`)

// pluralNeverOne are the counts that cannot be 1 where they are printed.
var pluralNeverOne = map[string]string{
	"of %d resources":      "a part of a whole: 1 of 3 resources",
	"--interval %s rounds": "%s is a duration, not a count",
	"%s events received since the cache started, more than": "at least the capacity (100 or more)",
	"the last %s events":                "the capacity: 100 or more",
	"%s events received in all":         "at least the capacity (100 or more)",
	"of %d rounds":                      "a part of a whole: 1 of 3 rounds",
	"of the %d resources":               "none of the N resources: a part of a whole",
	"(%d requests) ran out":             "--max-requests is at least 2 (validated)",
	"at most %d events":                 "a constant (maxReachEvents)",
	"all %d pages":                      "a single page is said as such",
	"%d errors of %d kinds":             "printed when the input holds several kinds",
	"%d lists of %s":                    "polling needs pollingMinLists (5) lists",
	"%d relists (lists":                 "a relist loop needs relistLoopMin (3)",
	"%d consistent lists":               "consistentMin (10)",
	"%d clients relisted %d times":      "a herd needs herdMinClients (3), each relisting",
	"%d digits":                         "an RV too long for 64 bits: over 19 digits",
	"%s initializations":                "printed when the cache was initialized more than once",
	"%s times":                          "printed when the cache was initialized more than once",
	"%d inputs":                         "printed for two inputs or more",
	"%d files (merged":                  "printed for two files or more",
	"%d bytes]":                         "Echo cuts values over MaxEcho bytes",
	"%d bytes left out":                 "Shorten cuts lines over its bound",
	"%d pages in a row brought no item": "listing.MaxEmptyPages (64) pages in a row",
	"is not done after %d pages":        "listing.MaxPages (100,000) pages",
}

// Every sentence that counts says "1 line", never "1 lines": a count
// followed by a plural noun in a format string is a bug unless Count makes
// it or the count cannot be 1 there (pluralNeverOne, with the reason).
func TestNoCountPrintsOnePlural(t *testing.T) {
	var found []string
	for _, dir := range []string{"../../pkg", "../../cmd", "../../internal"} {
		err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				for _, m := range countedNoun.FindAllStringIndex(line, -1) {
					if !neverOne(line, m[0], m[1]) {
						found = append(found, path+":"+itoa(i+1)+": "+strings.TrimSpace(line[m[0]:m[1]]))
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range found {
		t.Errorf("%s: says \"1 ...s\" when the count is 1: use text.Count", f)
	}
}

func neverOne(line string, start, end int) bool {
	for k := range pluralNeverOne {
		if i := strings.Index(line, k); i >= 0 && i <= end && i+len(k) >= start {
			return true
		}
	}
	return false
}

func itoa(n int) string { return Thousands(uint64(n)) }

// parenPlural: a word followed by "(s)" ("server(s)", "1 request(s)"): the
// plugin's texts say a count with its noun agreeing (Count, Noun), and a
// sentence without a known count is worded to hold for any number.
var parenPlural = regexp.MustCompile(`[A-Za-z]\(s\)`)

// parenPluralLeft are the files whose string literals may still say "(s)",
// each with why. Nothing else may: a new "(s)" is a bug.
var parenPluralLeft = map[string]string{}

// Every string literal of pkg/, cmd/ and internal/ (tests aside) that
// writes a noun writes it agreeing with its number: "1 server", "2
// servers", never "1 server(s)".
func TestNoStringSaysParenthesizedPlural(t *testing.T) {
	left := map[string]bool{}
	err := srclit.Walk("../..", []string{"pkg", "cmd", "internal"}, nil, func(l srclit.Literal) {
		allowed := ""
		for k := range parenPluralLeft {
			if l.File == k || strings.HasSuffix(k, "/") && strings.HasPrefix(l.File, k) {
				allowed = k
			}
		}
		for _, m := range parenPlural.FindAllStringIndex(l.Value, -1) {
			if allowed != "" {
				left[allowed] = true
				continue
			}
			from, to := max(m[0]-30, 0), min(m[1]+10, len(l.Value))
			t.Errorf("%s:%d: %q says a plural with \"(s)\": use text.Count or text.Noun so the noun agrees with its number, or word it to hold for any number", l.File, l.Line, l.Value[from:to])
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range parenPluralLeft {
		if !left[k] {
			t.Errorf("%s no longer says \"(s)\": drop it from parenPluralLeft", k)
		}
	}
}
