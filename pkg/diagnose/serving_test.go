package diagnose

import (
	"regexp"
	"strings"
	"testing"
)

// cacheServes finds each clause that has the watch cache serve a request,
// and cacheAbsent each that says the resource has none.
var (
	cacheServes = regexp.MustCompile(`(served|read|answered) (from|by) the watch cache[^;.]*`)
	cacheAbsent = regexp.MustCompile(`(no watch cache|watch cache is off|watch cache is not serving|watch cache off)`)
	qualified   = regexp.MustCompile(`\b(where|if|once|unless)\b`)
)

// H42 (issue 25): a text that names who serves what chooses its words from
// the one fact its kind gives about the watch cache. With the cache off
// (EtcdCompactedWatch: storage answered the watch) no paragraph may have
// the watch cache serve the relist; with the cache on none may say it is
// off; where the kind does not say, every "served from the watch cache"
// is qualified ("where the resource has one"). Every sample of every kind.
func TestServingWordsFollowTheKindsOneFact(t *testing.T) {
	kinds := map[string]bool{}
	for _, s := range samples {
		d := FromText(s.text)
		if !d.Recognized() {
			continue
		}
		kinds[d.Kind] = true
		paragraphs := map[string]string{"summary": d.Summary, "what": d.What, "why": d.Why, "clientGo": d.ClientGo, "fix": d.Fix}
		for name, p := range paragraphs {
			switch watchCacheOf(d.Kind) {
			case "off":
				if m := cacheServes.FindString(p); m != "" {
					t.Errorf("%s (%s, no watch cache): %s says %q", s.name, d.Kind, name, m)
				}
			case "on":
				if m := cacheAbsent.FindString(p); m != "" {
					t.Errorf("%s (%s, a watch cache): %s says %q", s.name, d.Kind, name, m)
				}
			default:
				for _, m := range cacheServes.FindAllString(p, -1) {
					if !qualified.MatchString(m) {
						t.Errorf("%s (%s, cache not known): %s says %q without a condition", s.name, d.Kind, name, m)
					}
				}
			}
		}
		if strings.Contains(d.ClientGo, "{") || strings.Contains(d.Why, "{") {
			t.Errorf("%s: a placeholder is left: %s %s", s.name, d.Why, d.ClientGo)
		}
	}
	for _, k := range []string{KindEtcdCompactedWatch, KindWatchCacheWindow, KindGone, KindWatchEventLostAtCompaction} {
		if !kinds[k] {
			t.Errorf("no sample of %s", k)
		}
	}
}

// bookmarkClause is a clause that names bookmarks; bookmarkDenied one
// that says they are not sent or cannot help (no recommendation).
var (
	bookmarkClause = regexp.MustCompile(`(?i)[^;.:]*bookmark[^;.:]*`)
	bookmarkDenied = regexp.MustCompile(`(?i)\b(no|without) (periodic )?bookmarks?\b|\bbookmarks? (cannot|do not|does not|never|are not|is not)\b`)
)

// User try 22 #3: a text recommends bookmarks only where the side that
// answers the kind's request sends them. Storage sends no periodic ones to a watch (a streaming list's end-of-state bookmark aside)
// (etcd3/watcher.go asks etcd for progress notifications only for the
// watch cache's own watch; 0 bookmarks in 80 s on a cache-off server), so
// a kind answered by storage ("off") never recommends them, and a kind that
// does not say who answered recommends them only under a condition. Every
// kind of the taxonomy, with and without numbers, and its inconsistent form.
func TestBookmarkAdviceOnlyWhereTheAnsweringSideSendsThem(t *testing.T) {
	for kind := range advices {
		forms := map[string]Diagnosis{
			"plain":        withAdvice(Diagnosis{Kind: kind}),
			"numbers":      withAdvice(Diagnosis{Kind: kind, RequestedResourceVersion: "100", OldestResourceVersion: "200", CurrentResourceVersion: "300"}),
			"inconsistent": withAdvice(Diagnosis{Kind: kind, Inconsistent: "a test"}),
		}
		for form, d := range forms {
			paragraphs := map[string]string{"what": d.What, "why": d.Why, "clientGo": d.ClientGo, "fix": d.Fix}
			for name, p := range paragraphs {
				for _, clause := range bookmarkClause.FindAllString(p, -1) {
					if bookmarkDenied.MatchString(clause) {
						continue
					}
					switch watchCacheOf(kind) {
					case "off":
						t.Errorf("%s (%s, answered by storage, which sends no bookmarks): %s recommends %q", kind, form, name, strings.TrimSpace(clause))
					case "":
						if !qualified.MatchString(clause) {
							t.Errorf("%s (%s, who answered not known): %s recommends %q without a condition", kind, form, name, strings.TrimSpace(clause))
						}
					}
				}
			}
		}
	}
}
