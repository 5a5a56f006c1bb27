package render

import (
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// NewServersAllReport is the report of probe --all --servers; an
// interrupted run is marked partial (it exits 130).
func NewServersAllReport(found servers.Found, run *sweep.Run[*servers.View], ctx suggest.Context) ServersAllReport {
	// Resources is [] with no row, never null (adversary try 22 F5).
	all := ServersAllReport{Discovery: found, Requests: found.Requests + run.Requests, Resources: []ServersReport{}}
	for _, v := range run.Rows {
		// Each row's requests are its own (the discovery of the servers
		// counts once, at the top), and its discovery is the run's: an
		// empty one contradicted it (fresh user try 15).
		row := NewServersReport("probe", servers.Found{}, v, ctx)
		row.Discovery = found
		all.Resources = append(all.Resources, row)
	}
	all.Interrupted = interruptionOf(run)
	return all
}
