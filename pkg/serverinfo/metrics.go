package serverinfo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/countio"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

// The metric families read here.
const (
	familyFeatureEnabled = "kubernetes_feature_enabled"
	familyCacheCapacity  = "watch_cache_capacity"
	// familyObjects counts the objects the server stores of each resource
	// it serves itself (serves.go), {group,resource}; familyObjectsLegacy
	// is its name before v1.35, {resource="R.G"} (v1.35 and v1.36 have
	// both). They sort before the two above, as the server writes them.
	familyObjects       = "apiserver_resource_objects"
	familyObjectsLegacy = "apiserver_storage_objects"
)

// MetricsFacts is what /metrics says about the gates and a resource's
// watch cache.
type MetricsFacts struct {
	Gates      map[string]bool
	WatchCache Tri
	// Stored: the server counts stored objects of the resource (it
	// serves it itself: serves.go); Unknown when no count was read.
	Stored Tri
}

// metricsScan reads a /metrics text (Prometheus text format) line by line,
// keeping only the facts: never the text, so memory does not grow with it.
type metricsScan struct {
	group, resource string
	// whole: the body is the server's whole /metrics (one that ignores
	// name[]): the other families are skipped, not a reason to stop.
	whole, skipping bool
	gates           map[string]bool
	seenGates       bool // the kubernetes_feature_enabled family began
	seenCapacity    bool // the watch_cache_capacity family began
	gatesDone       bool // the gates' family ended (the next family began)
	cache           Tri
	cacheDone       bool // the resource's series, or the end of its family
	// current is the family whose lines are being read: a fact that no
	// series of a family gave is decided at that family's end, never from
	// the order of its series (adversary try 35 F2: "no watch cache" of
	// configmaps from a secrets series listed before it).
	current    string
	seenStored bool // a stored-object family began
	stored     Tri
	storedDone bool // the resource's count, or past its place
	unfiltered bool // a family not asked for: the server ignored name[]
	eof        bool // the text ended within the cap
	cut        bool // the cap was reached first
	read       int64
	err        error
	form       *metrics.Form
}

// maxMetricsLine bounds one line of /metrics (a sample with its labels).
const maxMetricsLine = 16 << 10

// scanMetrics reads r until the facts for group/resource ("" for none) are
// complete, r ends, a family other than the two asked for appears, or
// limit bytes were read.
func scanMetrics(r io.Reader, limit int64, group, resource string) *metricsScan {
	return scanMetricsOf(r, limit, group, resource, false)
}

func scanMetricsOf(r io.Reader, limit int64, group, resource string, whole bool) *metricsScan {
	s := &metricsScan{group: group, resource: resource, gates: map[string]bool{}, cache: Unknown, stored: Unknown, whole: whole, form: metrics.NewForm()}
	cr := &countio.Reader{R: io.LimitReader(r, limit+1)}
	sc := bufio.NewScanner(cr)
	sc.Buffer(make([]byte, 4096), maxMetricsLine)
	defer func() { s.read = cr.N }()
	for sc.Scan() {
		s.line(sc.Text())
		if s.err != nil && cr.N > limit {
			// The last line was cut by the cap, not malformed.
			s.err, s.cut = nil, true
			return s
		}
		if s.unfiltered || s.err != nil || s.complete() {
			return s
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("a /metrics line is longer than %d KiB", maxMetricsLine>>10)
		}
		if apiclient.IsBodyCut(err) {
			// The transport's one wording of a cut body, never Go's
			// "unexpected EOF".
			s.err = err
			return s
		}
		s.err = fmt.Errorf("cannot read /metrics: %w", err)
		return s
	}
	s.cut = cr.N > limit
	s.eof = !s.cut
	if s.eof {
		s.endFamily(s.current) // the text's end ends its last family
	}
	if s.eof && !s.seenGates && !s.seenCapacity && !s.unfiltered {
		// Every kube-apiserver exposes its feature gates: an answer with
		// no family at all (an empty 200) is no server's /metrics, and
		// read as one its cache would be "off" (adversary try 11).
		s.err = fmt.Errorf("/metrics answered with no metric at all, not even %s, which every kube-apiserver exposes", familyFeatureEnabled)
	}
	return s
}

// complete: every fact asked for is known (its series seen, or passed in
// the server's order).
func (s *metricsScan) complete() bool {
	return s.gatesDone && (s.resource == "" || s.cacheDone && s.storedDone)
}

func (s *metricsScan) line(l string) {
	switch {
	case l == "":
		return
	case strings.HasPrefix(l, "# HELP ") || strings.HasPrefix(l, "# TYPE "):
		name, typ, _ := strings.Cut(l[len("# HELP "):], " ")
		s.family(name)
		if strings.HasPrefix(l, "# TYPE ") {
			// Held to a kube-apiserver's form, as every /metrics read is
			// (metrics.Form): once, before its samples, of the right TYPE.
			if err := s.form.Declare(name, strings.TrimSpace(typ), name == familyFeatureEnabled || name == familyCacheCapacity || storedFamily(name)); err != nil {
				s.err = fmt.Errorf("/metrics cannot be read: %w", err)
			}
		}
		return
	case strings.HasPrefix(l, "#"):
		return
	}
	end := strings.IndexAny(l, "{ ")
	if end <= 0 {
		s.err = fmt.Errorf("/metrics is not in the Prometheus text format (line %q)", shortLine(l))
		return
	}
	name := l[:end]
	if s.family(name); s.unfiltered || s.skipping {
		return
	}
	if !s.form.Sample(name) {
		s.err = errors.New(s.form.Mistyped[name] + ": not measured")
		return
	}
	labels, value, err := parseSample(l[end:])
	if err != nil {
		s.err = fmt.Errorf("/metrics: %w (line %q)", err, shortLine(l))
		return
	}
	if err := s.form.Series(name, labels); err != nil {
		s.err = fmt.Errorf("/metrics cannot be read: %w", err)
		return
	}
	switch name {
	case familyFeatureEnabled:
		g := labels["name"]
		for _, want := range Gates {
			if g == want {
				s.gates[g] = value == 1
			}
		}
	case familyCacheCapacity:
		s.capacitySeries(labels)
	case familyObjects, familyObjectsLegacy:
		s.storedSeries(labels)
	}
}

// storedFamily: name counts the stored objects of each resource.
func storedFamily(name string) bool { return name == familyObjects || name == familyObjectsLegacy }

// family notes that a family's lines began; one not asked for means the
// server ignored the filter (and sends everything).
func (s *metricsScan) family(name string) {
	if name != s.current {
		s.endFamily(s.current)
		s.current = name
	}
	s.skipping = false
	if name > familyObjectsLegacy && !s.storedDone {
		// Past the stored-object families in the server's name order:
		// a resource whose count did not come has none.
		s.storedDone = true
		if s.seenStored && s.stored == Unknown {
			s.stored = No
		}
	}
	switch name {
	case familyObjects, familyObjectsLegacy:
		s.seenStored = true
	case familyFeatureEnabled:
		s.seenGates = true
	case familyCacheCapacity:
		s.seenCapacity = true
		if s.seenGates {
			s.gatesDone = true // the server writes families in name order
		}
	default:
		if s.whole {
			s.skipping = true
			if s.seenGates && name > familyFeatureEnabled {
				s.gatesDone = true // past its place in the name order
			}
			return
		}
		s.unfiltered = true
	}
}

// endFamily decides what the family that ended did not say: every gate
// it had was seen; a resource none of whose series came has no watch
// cache. Decided at the family's end, whatever order its series came in.
func (s *metricsScan) endFamily(name string) {
	switch name {
	case familyFeatureEnabled:
		s.gatesDone = true
	case familyCacheCapacity:
		if s.resource != "" && !s.cacheDone {
			s.cache, s.cacheDone = No, true
		}
	}
}

// capacitySeries: a cacher exposes watch_cache_capacity from its start,
// labelled {group,resource} on v1.34+ and {resource="R.G"} before.
func (s *metricsScan) capacitySeries(labels map[string]string) {
	if s.resource != "" && !s.cacheDone && s.isResource(labels) {
		s.cache, s.cacheDone = Yes, true
	}
}

// storedSeries: the server counts the objects it stores of each resource
// it serves, from its storage's start, in the two label forms of
// watch_cache_capacity. A resource without a count is decided past the
// stored-object families (family).
func (s *metricsScan) storedSeries(labels map[string]string) {
	if s.resource != "" && !s.storedDone && s.isResource(labels) {
		s.stored, s.storedDone = Yes, true
	}
}

// isResource: a series labelled {group,resource} (v1.34 and later) or
// {resource="R.G"} (before) is the resource read's.
func (s *metricsScan) isResource(labels map[string]string) bool {
	if g, ok := labels["group"]; ok {
		return g == s.group && labels["resource"] == s.resource
	}
	want := s.resource
	if s.group != "" {
		want += "." + s.group
	}
	return labels["resource"] == want
}

// facts is what was read. At the end of the text: a resource whose series
// never came has no watch cache, and a server whose gates came but no
// watch_cache_capacity at all caches nothing (--watch-cache=false).
func (s *metricsScan) facts() *MetricsFacts {
	m := &MetricsFacts{Gates: s.gates, WatchCache: s.cache, Stored: s.stored}
	if s.resource != "" && !s.cacheDone && s.eof && (s.seenCapacity || s.seenGates) {
		m.WatchCache = No
	}
	if s.resource != "" && !s.storedDone && s.eof && s.seenStored {
		m.Stored = No
	}
	return m
}

// parseSample reads `{k="v",...} value [timestamp]`.
func parseSample(rest string) (map[string]string, float64, error) {
	labels := map[string]string{}
	if strings.HasPrefix(rest, "{") {
		i := 1
		for {
			for i < len(rest) && (rest[i] == ',' || rest[i] == ' ') {
				i++
			}
			if i < len(rest) && rest[i] == '}' {
				i++
				break
			}
			eq := strings.IndexByte(rest[i:], '=')
			if eq <= 0 || i+eq+1 >= len(rest) || rest[i+eq+1] != '"' {
				return nil, 0, errors.New("a malformed label")
			}
			key := strings.TrimSpace(rest[i : i+eq])
			v, n, err := unquoteLabel(rest[i+eq+1:])
			if err != nil {
				return nil, 0, err
			}
			labels[key] = v
			i += eq + 1 + n
		}
		rest = rest[i:]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return nil, 0, errors.New("a sample without a value")
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return nil, 0, fmt.Errorf("a sample value that is not a number")
	}
	return labels, v, nil
}

// unquoteLabel reads a "..." label value (escapes \\, \" and \n) and how
// many bytes it took.
func unquoteLabel(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return "", 0, errors.New("a label value ends in a backslash")
			}
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("a label value without its closing quote")
}

func shortLine(l string) string {
	if len(l) > 80 {
		return l[:80] + "..."
	}
	return l
}

// ForbiddenNote is the line said when /metrics may not be read.
const ForbiddenNote = `/metrics is forbidden to this user (it needs nonResourceURLs ["/metrics"], verbs ["get"]): feature gates taken as the version's defaults, the watch cache as unknown`

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
