package metrics

import (
	"fmt"
	"strings"

	dto "github.com/prometheus/client_model/go"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// familyTypes is the TYPE every kube-apiserver (v1.30 to v1.37) declares
// for each family the plugin reads (top, probe --metrics, list's server
// facts): k8s.io/apiserver and component-base register them so
// (storage/cacher/metrics, endpoints/metrics, audit, flowcontrol,
// storage/etcd3/metrics), and every recording of pkg/top and pkg/metrics
// testdata declares them so. A family declared with another TYPE is no
// kube-apiserver's: its samples mean something else (a histogram's plain
// sample is dropped by the parser, a gauge read as a counter gives rates
// of nothing), so it is not measured, never read as 0 (adversary try 19).
var familyTypes = map[string]dto.MetricType{
	"apiserver_longrunning_requests":                dto.MetricType_GAUGE,
	"apiserver_watch_events_total":                  dto.MetricType_COUNTER,
	"apiserver_watch_events_sizes":                  dto.MetricType_HISTOGRAM,
	FamilyEventsReceived:                            dto.MetricType_COUNTER,
	"apiserver_watch_cache_events_dispatched_total": dto.MetricType_COUNTER,
	FamilyTerminatedWatchers:                        dto.MetricType_COUNTER,
	FamilyCapacity:                                  dto.MetricType_GAUGE,
	FamilyResourceVersion:                           dto.MetricType_GAUGE,
	FamilyInitializations:                           dto.MetricType_COUNTER,
	FamilyCapacityIncreases:                         dto.MetricType_COUNTER,
	FamilyCapacityDecreases:                         dto.MetricType_COUNTER,
	FamilyBookmarks:                                 dto.MetricType_COUNTER,
	FamilyBookmarksLegacy:                           dto.MetricType_GAUGE,
	"apiserver_cache_list_total":                    dto.MetricType_COUNTER,
	"apiserver_cache_list_fetched_objects_total":    dto.MetricType_COUNTER,
	"apiserver_cache_list_returned_objects_total":   dto.MetricType_COUNTER,
	"apiserver_storage_list_total":                  dto.MetricType_COUNTER,
	"apiserver_storage_list_fetched_objects_total":  dto.MetricType_COUNTER,
	"apiserver_storage_list_returned_objects_total": dto.MetricType_COUNTER,
	"apiserver_request_total":                       dto.MetricType_COUNTER,
	"apiserver_flowcontrol_rejected_requests_total": dto.MetricType_COUNTER,
	"apiserver_resource_objects":                    dto.MetricType_GAUGE,
	"apiserver_storage_objects":                     dto.MetricType_GAUGE,
	FamilyProcessStart:                              dto.MetricType_GAUGE,
	"kubernetes_build_info":                         dto.MetricType_GAUGE,
	"kubernetes_feature_enabled":                    dto.MetricType_GAUGE,
	FamilyAuditEvents:                               dto.MetricType_COUNTER,
}

// KnowsType reports whether the plugin knows the TYPE a kube-apiserver
// declares for family (a reader's families must all be known: tests of
// pkg/top and pkg/metrics check it).
func KnowsType(family string) bool {
	_, ok := familyTypes[family]
	return ok
}

// typeWord is a TYPE as the exposition writes it ("counter").
func typeWord(t dto.MetricType) string { return strings.ToLower(t.String()) }

// wrongType is why family, declared as declared ("" when it has no TYPE
// line: untyped), is not read: "" when it is the TYPE a kube-apiserver
// declares, or a family whose TYPE the plugin does not know.
func wrongType(family, declared string) string {
	want, ok := familyTypes[family]
	switch {
	case !ok || declared == typeWord(want):
		return ""
	case declared == "":
		return fmt.Sprintf("%s has samples without a TYPE line (untyped), where every kube-apiserver declares it a %s", family, typeWord(want))
	}
	return fmt.Sprintf("%s is declared a %s, where every kube-apiserver declares it a %s", family, text.Echo(declared), typeWord(want))
}
