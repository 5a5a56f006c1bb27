//go:build e2e

package aggregated

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var gadgets = framework.ExtensionResource + "." + framework.ExtensionGroup

type probeRow struct {
	Resource               string `json:"resource"`
	CurrentResourceVersion string `json:"currentResourceVersion"`
	CurrentFrom            string `json:"currentFrom"`
	OldestResourceVersion  string `json:"oldestResourceVersion"`
	Source                 string `json:"source"`
	Found                  bool   `json:"found"`
	Answer                 struct {
		Unrecognized int `json:"unrecognized"`
	} `json:"answer"`
}

// Issue 25 item 7: a 410 whose wording the plugin does not know (an
// aggregated API server with a history window of its own) is not "nothing
// has expired": the verdict says who answered cannot be told, and the
// SOURCE is unknown. Through the real aggregator of a real kube-apiserver.
func TestProbeUnrecognized410IsNotNothingExpired(t *testing.T) {
	agg.Extension.SetExpiry(102, "this gadget store forgot resource versions below 102")
	defer agg.Extension.SetExpiry(0, "")
	r := framework.Run(t, cluster.Kubeconfig, 2*time.Minute, "probe", gadgets, "-n", framework.ExtensionNamespace, "-o", "json")
	var row probeRow
	if err := json.Unmarshal([]byte(r.Stdout), &row); err != nil || r.Code != 0 {
		t.Fatalf("exit %d, %v: %s %s", r.Code, err, r.Stdout, r.Stderr)
	}
	if !row.Found || row.OldestResourceVersion != "102" || row.Source != "unknown" || row.Answer.Unrecognized == 0 {
		t.Fatalf("want the bound 102 from unrecognized 410s, source unknown: %+v", row)
	}
	h := framework.Run(t, cluster.Kubeconfig, 2*time.Minute, "probe", gadgets, "-n", framework.ExtensionNamespace, "-v")
	answered := ""
	for _, l := range strings.Split(h.Stdout, "\n") {
		if strings.HasPrefix(l, "Answered by:") {
			answered = l
		}
	}
	if h.Code != 0 || strings.Contains(h.Stdout, "nothing has expired") || !strings.Contains(answered, "does not recognize") || !strings.Contains(answered, "forgot resource versions below 102") {
		t.Fatalf("exit %d, the verdict above an unrecognized 410: %q\n%s", h.Code, answered, h.Stdout)
	}
}

// Issue 23 item 2: probe --all reads the current RV once for the
// resources of the cluster's own revision; an aggregated API has RVs of
// its own, so its row reads its own (the extension server's list RV).
func TestProbeAllAggregatedReadsItsOwnCurrentRV(t *testing.T) {
	r := framework.Run(t, cluster.Kubeconfig, 5*time.Minute, "probe", "--all", "-n", framework.ExtensionNamespace, "--qps", "100", "-o", "json")
	var out struct {
		Resources  []probeRow `json:"resources"`
		RunCurrent struct {
			Current string   `json:"currentResourceVersion"`
			Groups  string   `json:"groups"`
			Own     []string `json:"ownCurrent"`
		} `json:"runCurrent"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || r.Code != 0 {
		t.Fatalf("exit %d, %v: %s", r.Code, err, r.Stderr)
	}
	if out.RunCurrent.Groups != "apiservices" || !slices.Contains(out.RunCurrent.Own, framework.ExtensionGroup+"/"+framework.ExtensionVersion) {
		t.Errorf("the aggregated group is not probed with its own RV: %+v", out.RunCurrent)
	}
	for _, row := range out.Resources {
		if row.Resource != gadgets {
			continue
		}
		if row.CurrentFrom != "own" || row.CurrentResourceVersion != strconv.Itoa(agg.Extension.ListRV()) {
			t.Fatalf("gadgets: current RV %s (%s), the extension server's is %d; the run's %s", row.CurrentResourceVersion, row.CurrentFrom, agg.Extension.ListRV(), out.RunCurrent.Current)
		}
		return
	}
	t.Fatalf("no gadgets row in %d rows", len(out.Resources))
}
