// Command plot draws the curves of the scale bench (bench/scale.sh) from
// its own JSON: wall time, peak RSS and bytes read from the server of each
// command by the size of the collection, and clients by the size of the
// audit log, each as a PNG. It is its own Go module (gonum/plot), so that
// the plugin's go.mod stays clean.
//
//	go run . -in results.json -dir ../../docs/img
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

type result struct {
	ID         string
	Display    string
	Group      string
	Size       int64 `json:"size"`
	MedianMs   float64
	PeakRSSKiB int64
	OwnRSSKiB  int64
	WireBytes  int64
}

type results struct {
	Started string   `json:"started"`
	Results []result `json:"results"`
}

// The lines of the cluster plots: the plugin solid, what a user runs
// instead dashed, one color per job.
var lines = []struct {
	id, label string
	color     color.Color
	dashed    bool
}{
	{"rv-only/watchrv", "watchrv list --rv-only", plotutil.Color(0), false},
	{"rv-only/kubectl", "kubectl get --raw ?limit=1", plotutil.Color(0), true},
	{"list/watchrv", "watchrv list", plotutil.Color(1), false},
	{"list/kubectl", "kubectl get -o json", plotutil.Color(1), true},
	{"watch/watchrv", "watchrv watch --rv list (1st event)", plotutil.Color(2), false},
	{"watch/kubectl", "kubectl get -w (1st event)", plotutil.Color(2), true},
	{"probe/watchrv", "watchrv probe", plotutil.Color(3), false},
	{"probe-all/watchrv", "watchrv probe --all", plotutil.Color(4), false},
	{"streaming-all/watchrv", "watchrv streaming --all", plotutil.Color(5), false},
	{"servers/watchrv", "watchrv probe --servers (HA)", plotutil.Color(6), false},
}

func main() {
	in := flag.String("in", "", "the bench's JSON (bench/scale -out)")
	dir := flag.String("dir", "", "where to write the PNGs")
	flag.Parse()
	if err := run(*in, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "bench plot:", err)
		os.Exit(1)
	}
}

func run(in, dir string) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var res results
	if err := json.Unmarshal(b, &res); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	day := res.Started
	if len(day) > 10 {
		day = day[:10]
	}
	for _, p := range []struct {
		file, title, y string
		val            func(result) float64
	}{
		{"scale-time.png", "Wall time (median), " + day, "seconds", func(r result) float64 { return r.MedianMs / 1000 }},
		{"scale-rss.png", "Peak RSS (the plugin's own process; kubectl's), " + day, "MiB", func(r result) float64 { return float64(r.OwnRSSKiB) / 1024 }},
		{"scale-bytes.png", "Bytes read from the server (wire), " + day, "MiB", func(r result) float64 { return float64(r.WireBytes) / (1 << 20) }},
	} {
		if err := clusterPlot(res, filepath.Join(dir, p.file), p.title, p.y, p.val); err != nil {
			return err
		}
	}
	return clientsPlot(res, filepath.Join(dir, "scale-clients.png"), day)
}

func byID(res results, id string) []result {
	var out []result
	for _, r := range res.Results {
		if r.ID == id {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Size < out[b].Size })
	return out
}

func clusterPlot(res results, path, title, ylabel string, val func(result) float64) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "configmaps of 1 KB in the namespace (200 CRDs beside)"
	p.Y.Label.Text = ylabel + " (log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = ticks125{}, ticks125{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	n := 0
	for i, l := range lines {
		var xy plotter.XYs
		for _, r := range byID(res, l.id) {
			if v := val(r); v > 0 {
				xy = append(xy, plotter.XY{X: float64(r.Size), Y: v})
			}
		}
		if len(xy) == 0 {
			continue
		}
		ln, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		ln.Color, pts.Color = l.color, l.color
		ln.Width = vg.Points(1.5)
		pts.Shape = plotutil.Shape(i)
		if l.dashed {
			ln.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(ln, pts)
		p.Legend.Add(l.label, ln, pts)
		n++
	}
	if n == 0 {
		return nil
	}
	return p.Save(7*vg.Inch, 5*vg.Inch, path)
}

func clientsPlot(res results, path, day string) error {
	p := plot.New()
	p.Title.Text = "clients against jq | sort | uniq -c, " + day
	p.X.Label.Text = "audit log (GiB)"
	p.Y.Label.Text = "seconds (solid) / peak RSS in MiB (dashed), log scale"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = ticks125{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	n := 0
	for i, id := range []string{"clients/watchrv", "clients/jq"} {
		rs := byID(res, id)
		if len(rs) == 0 {
			continue
		}
		name := map[string]string{"clients/watchrv": "watchrv clients", "clients/jq": "jq | sort | uniq -c"}[id]
		var t, m plotter.XYs
		for _, r := range rs {
			x := float64(r.Size) / (1 << 30)
			t = append(t, plotter.XY{X: x, Y: r.MedianMs / 1000})
			m = append(m, plotter.XY{X: x, Y: float64(r.OwnRSSKiB) / 1024})
		}
		for k, xy := range []plotter.XYs{t, m} {
			ln, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			ln.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
			ln.Width = vg.Points(1.5)
			pts.Shape = draw.CircleGlyph{}
			label := name + ", time"
			if k == 1 {
				ln.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
				label = name + ", peak RSS"
			}
			p.Add(ln, pts)
			p.Legend.Add(label, ln, pts)
		}
		n++
	}
	if n == 0 {
		return nil
	}
	return p.Save(7*vg.Inch, 5*vg.Inch, path)
}

// ticks125 labels a log axis at 1, 2 and 5 times each power of ten (the
// default labels only the powers), with unlabelled ticks between.
type ticks125 struct{}

func (ticks125) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for m := 1.0; m < 10; m++ {
			v := m * math.Pow(10, e)
			if v < min*0.999 || v > max*1.001 {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}
