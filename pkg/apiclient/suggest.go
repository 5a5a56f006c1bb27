package apiclient

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// maxResourceArg is longer than any resource.group name (a group is a DNS
// subdomain of at most 253 bytes).
const maxResourceArg = 512

// suggest returns up to three names close to arg (prefix or small edit distance).
func suggest(disco discovery.DiscoveryInterface, arg string) []string {
	if len(arg) > maxResourceArg {
		// No resource is named like that, and the edit distance of a huge
		// argument would cost seconds.
		return nil
	}
	lists, _ := disco.ServerPreferredResources()
	arg = strings.ToLower(arg)
	res, _, _ := strings.Cut(arg, ".")
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	seen := map[string]bool{}
	for _, l := range lists {
		gv, _ := schema.ParseGroupVersion(l.GroupVersion)
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			full := r.Name
			if gv.Group != "" {
				full += "." + gv.Group
			}
			// The name alone too, of a name with a wrong group or version
			// ("deploy.nosuchgroup" is deployments.apps), and the whole
			// name.group ("deploymnts.apps"; fresh user try 14).
			// Each comparison is bounded by the length of what it
			// compares: the type part of "widgets.example.com" is
			// "widgets", which is not close to "nodes" (fresh user try
			// 16: a bound of the whole name's length let it through).
			best, close := -1, false
			try := func(d int, of string) {
				if d <= suggestBound(of) {
					close = true
					if best < 0 || d < best {
						best = d
					}
				}
			}
			try(distance(arg, full), arg)
			for _, n := range namesOf(r) {
				try(distance(arg, n), arg)
				if res != arg {
					try(distance(res, n), res)
				}
				if strings.HasPrefix(n, arg) && len(arg) >= 3 {
					try(1, arg)
				}
			}
			if close && !seen[full] {
				seen[full] = true
				cands = append(cands, cand{full, best})
			}
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < 3; i++ {
		if cands[i].dist > cands[0].dist && cands[0].dist == 0 {
			// A name that matched exactly (the type with a wrong
			// group) is the answer: others would only pad it (fresh
			// user try 15: "deployments.apps" or "endpoints" or ...).
			break
		}
		out = append(out, cands[i].name)
	}
	return out
}

// suggestBound is the largest edit distance at which a name is close to
// s: a quarter of its length, at least 2; 1 for a word under 5 letters, of
// which 2 edits are most ("foo" is not "job" or "pod").
func suggestBound(s string) int {
	if len(s) < 5 {
		return 1
	}
	return max(2, len(s)/4)
}

func namesOf(r metav1.APIResource) []string {
	names := []string{r.Name, strings.ToLower(r.Kind)}
	if r.SingularName != "" {
		names = append(names, r.SingularName)
	}
	return append(names, r.ShortNames...)
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}
