package metrics

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/url"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// Bounds of one /metrics read. The text is within its byte cap
// (apiclient.LimitMetrics, 64 MiB), but parsed into Prometheus families a
// series takes some 20 times its bytes: these keep what is parsed small
// whatever the server sends. Past one, the read ends with an
// *apiclient.BoundError naming the request (the Unbounded class, exit 13).
const (
	// MaxSelectedLine bounds one line: a sample line is a name, its labels
	// and a value; a megabyte is far past any real one, and a server that
	// sends no newline cannot make the reader hold its answer as one line.
	MaxSelectedLine = 1 << 20
	// MaxSelectedSeries bounds the samples kept of the families asked for
	// (a histogram's buckets left out); parsed, a series of
	// apiserver_request_total takes some 1.8 KB, so the bound holds them
	// under 100 MB. The largest family of a real server,
	// apiserver_request_total, has some 30 series a resource type (verbs,
	// codes, scopes): a cluster with 1,000 resource types has 30,000.
	MaxSelectedSeries = 50_000
	// MaxDeclaredFamilies bounds the "# TYPE" lines told apart (a
	// kube-apiserver declares some 400 to 600 families, whatever the
	// cluster size).
	MaxDeclaredFamilies = 10_000
)

// batchBytes: kept lines are parsed in batches of about this size, so the
// parser's own expansion is held for one batch only (a variable for the
// tests, which make batches small).
var batchBytes = 256 << 10

// ErrLineTooLong: a line of /metrics is longer than MaxSelectedLine (the
// cause of the *apiclient.BoundError a read returns).
var ErrLineTooLong = errors.New("a line of /metrics is longer than 1 MiB")

const notAServer = "no kube-apiserver sends that: check the kubeconfig's server address and any proxy in front of it"

func lineTooLong() error {
	return &apiclient.BoundError{Over: "has a line longer than 1 MiB", Bound: "the longest line the plugin reads of /metrics", Fix: notAServer, Cause: ErrLineTooLong}
}

// ParseSelected parses only the families named in names out of a /metrics
// text, with the one parser (Parse), and reports every family name the
// text declared (its "# TYPE" lines, kept or not), so that a caller can
// tell whether a server filtered its answer. Lines are sorted out as they
// stream by their metric name: "# TYPE NAME", or a sample "NAME{...} V" /
// "NAME V"; a histogram's or summary's NAME_bucket, NAME_sum and
// NAME_count lines belong to NAME, and dropBuckets leaves out the _bucket
// lines (the sum and the count are all a rate needs, and the buckets are
// most of a histogram). "# HELP" lines are dropped. Only the kept samples
// are held, parsed a batch at a time, so an old server that ignores the
// name[] filter of /metrics and sends everything costs the bytes, not the
// memory; the bounds above end a text that would take more. A bound's
// error does not name the request: ReadSelected does (or
// apiclient.AttachRequest). The text is held to a kube-apiserver's form
// (exposition.go): a family declared twice or after its samples, or a
// series repeated, cannot be read; a family asked for whose TYPE is not a
// kube-apiserver's is left out and named in Mistyped.
func ParseSelected(r io.Reader, names []string, dropBuckets bool) (*Selected, error) {
	s := newSelector(names)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			if lerr := s.line(line, dropBuckets); lerr != nil {
				return nil, lerr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := s.flush(); err != nil {
		return nil, err
	}
	if s.want[FamilyProcessStart] && !s.serverSampled {
		// Every read asks for the process start and for a family only a
		// kube-apiserver exposes, with a sample on every version, the
		// watch cache on or off (apiserver_audit_event_total or
		// apiserver_request_total): an answer without a sample of such
		// a family (an empty 200, "# TYPE" lines alone, other families,
		// or another Go program's process_start_time_seconds) is no API
		// server's /metrics, and read as one it would say 0 watchers, no
		// watch cache, nothing evicted (adversary tries 11 to 13).
		return nil, &apiclient.UnreadableAnswerError{What: "the answer holds no sample of the kube-apiserver's families asked for, not even " + FamilyAuditEvents + ", which every kube-apiserver exposes: it is not a kube-apiserver's /metrics"}
	}
	return &Selected{Families: s.out, Declared: s.form.declared, Mistyped: s.form.Mistyped}, nil
}

type selector struct {
	want  map[string]bool
	form  *Form
	types map[string]string // a wanted family -> its "# TYPE" line
	// serverSampled: a sample came of a family only an API server
	// exposes (any Go program has a process start; every Kubernetes
	// component has kubernetes_build_info), kept or not.
	serverSampled bool
	// parts counts the _sum and _count lines of each histogram or summary
	// in the batch (seriesOnce).
	parts     map[string]*[2]int
	kept      int
	batch     bytes.Buffer
	batchFams map[string]bool
	out       Families
}

func newSelector(names []string) *selector {
	s := &selector{want: map[string]bool{}, form: NewForm(), types: map[string]string{}, parts: map[string]*[2]int{}, batchFams: map[string]bool{}, out: Families{}}
	for _, n := range names {
		s.want[n] = true
	}
	return s
}

func (s *selector) line(line []byte, dropBuckets bool) error {
	name, suffix, ok := lineFamily(line, s.want)
	switch {
	case !ok || bytes.HasPrefix(line, []byte("# HELP ")):
		return nil
	case bytes.HasPrefix(line, []byte("# TYPE ")):
		return s.declare(name, line)
	case !s.want[name]:
		return nil
	}
	if name != FamilyProcessStart && name != "kubernetes_build_info" {
		s.serverSampled = true
	}
	if !s.form.Sample(name) || (suffix == "_bucket" && dropBuckets) {
		return nil
	}
	if err := s.part(name, suffix); err != nil {
		return err
	}
	if s.kept++; s.kept > MaxSelectedSeries {
		return &apiclient.BoundError{
			Over:  "holds more than " + text.Thousands(MaxSelectedSeries) + " series of the families read",
			Bound: "the most the plugin keeps of one /metrics (a large cluster has tens of thousands)",
			Fix:   notAServer,
		}
	}
	s.batch.Write(line)
	s.batch.WriteByte('\n')
	s.batchFams[name] = true
	if s.batch.Len() >= 8*batchBytes || (s.batch.Len() >= batchBytes && s.seriesEnds(name, line)) {
		return s.flush()
	}
	return nil
}

// declare takes a "# TYPE" line (Form.Declare): a wanted family's is
// kept, to head its lines in each batch.
func (s *selector) declare(name string, line []byte) error {
	if !s.form.declared[name] && len(s.form.declared) >= MaxDeclaredFamilies {
		return &apiclient.BoundError{Over: "declares more than " + text.Thousands(MaxDeclaredFamilies) + " metric families", Bound: "the most the plugin tells apart in one /metrics", Fix: notAServer}
	}
	declared := ""
	if f := bytes.Fields(line); len(f) >= 4 {
		declared = string(f[3])
	}
	if err := s.form.Declare(name, declared, s.want[name]); err != nil {
		return err
	}
	if s.want[name] && s.form.Mistyped[name] == "" {
		s.types[name] = string(line)
	}
	return nil
}

// part notes a histogram's sample (suffix: its _bucket, _sum or _count,
// "" none), which is one of its parts, and counts its _sum and _count
// lines (seriesOnce).
func (s *selector) part(name, suffix string) error {
	if suffix == "" && strings.HasSuffix(s.types[name], " histogram") {
		return histogramWithoutPart(name)
	}
	if suffix == "_sum" || suffix == "_count" {
		p := s.parts[name]
		if p == nil {
			p = new([2]int)
			s.parts[name] = p
		}
		if suffix == "_sum" {
			p[0]++
		} else {
			p[1]++
		}
	}
	return nil
}

// seriesEnds: a batch may end after line. A histogram's or summary's series
// is several lines (buckets or quantiles, then _sum, then _count, as every
// Prometheus client writes them) that the parser joins into one series:
// a batch ends only after its _count.
func (s *selector) seriesEnds(family string, line []byte) bool {
	t := s.types[family]
	if !strings.HasSuffix(t, " histogram") && !strings.HasSuffix(t, " summary") {
		return true
	}
	return bytes.HasPrefix(line, []byte(family+"_count"))
}

// flush parses the batch (each family's "# TYPE" line first) and adds
// its series to the families kept.
func (s *selector) flush() error {
	if s.batch.Len() == 0 {
		return nil
	}
	var in bytes.Buffer
	for name := range s.batchFams {
		if t, ok := s.types[name]; ok {
			in.WriteString(t)
			in.WriteByte('\n')
		}
	}
	in.Write(s.batch.Bytes())
	s.batch.Reset()
	clear(s.batchFams)
	f, err := Parse(&in)
	if err != nil {
		return err
	}
	defer clear(s.parts)
	for name, mf := range f {
		if err := s.seriesOnce(name, mf); err != nil {
			return err
		}
		if have := s.out[name]; have != nil && have.GetType() == mf.GetType() {
			have.Metric = append(have.Metric, mf.Metric...)
			continue
		}
		s.out[name] = mf
	}
	return nil
}

// readLine reads one line without its newline, at most MaxSelectedLine
// bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		line = append(line, chunk...)
		if len(line) > MaxSelectedLine {
			return nil, lineTooLong()
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

// lineFamily names the family a line belongs to; ok is false for a
// comment that is neither HELP nor TYPE. suffix: "_bucket", "_sum" or
// "_count" of a sample NAME_bucket, NAME_sum, NAME_count of a wanted
// NAME ("" any other line).
func lineFamily(line []byte, want map[string]bool) (name, suffix string, ok bool) {
	if line[0] == '#' {
		f := bytes.Fields(line)
		if len(f) >= 3 && (string(f[1]) == "HELP" || string(f[1]) == "TYPE") {
			return string(f[2]), "", true
		}
		return "", "", false
	}
	end := bytes.IndexAny(line, "{ \t")
	if end < 0 {
		end = len(line)
	}
	if end == 0 {
		return "", "", false
	}
	b := line[:end]
	if want[string(b)] {
		return string(b), "", true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, found := bytes.CutSuffix(b, []byte(suffix)); found && want[string(base)] {
			return string(base), suffix, true
		}
	}
	return string(b), "", true
}

// Selected is one read of chosen families out of /metrics.
type Selected struct {
	Families Families
	// Declared is every family the text declared: a server that honours
	// name[] (v1.37 and later) declares only those asked for.
	Declared map[string]bool
	// Mistyped are the families asked for that the text declared with a
	// TYPE other than a kube-apiserver's, or with none, and why: they are
	// not in Families, and a reader says they are not measured (never
	// that the server does not expose them, never 0).
	Mistyped map[string]string
}

// ReadSelected is the plugin's read of chosen families out of /metrics:
// one GET /metrics asking for them by name[] (apiclient.GetMetrics; older
// servers ignore it and send everything), parsed by ParseSelected as it
// streams. A bound broken is an *apiclient.BoundError naming the request.
func ReadSelected(ctx context.Context, c *apiclient.Client, names []string, dropBuckets bool) (*Selected, error) {
	body, err := c.GetMetrics(ctx, names...)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	sel, err := ParseSelected(body, names, dropBuckets)
	if err != nil {
		return nil, apiclient.AttachRequest(err, body, "/metrics", url.Values{"name[]": names})
	}
	return sel, nil
}
