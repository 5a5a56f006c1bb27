package diagnose

import (
	"strings"
	"testing"
)

// sample is a real error text and what FromText must say about it. Every
// text is either copied from the cited public source, or put together from
// formats verified in the cited sources (marked "format: A; message: B").
type sample struct {
	name, text string
	class      Class
	kind       string
	conf       string // "" = do not check
	req, old   string
	cur, gap   string
	code       int32
	reason     string
	note       string // a text the notes must hold ("" = do not check)
	msg        string // a text the message must hold ("" = do not check)
}

var samples = []sample{
	// --- The server's own messages (kube-apiserver v1.37.2 sources) ---
	// k8s.io/apiserver@v0.37.2/pkg/storage/cacher/watch_cache_history.go; the numbers
	// are the ones seen on a v1.37.2 server after a restart (reference/rv-semantics.md).
	{name: "watch cache window, bare", text: `too old resource version: 214 (257)`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceHigh, req: "214", old: "257", gap: "43"},
	// cacher/store/watch_cache_storage.go GetExactSnapshotLocked.
	{name: "watch cache snapshot", text: `too old resource version: 100`,
		class: ClassExpired, kind: KindWatchCacheSnapshot, conf: ConfidenceMedium, req: "100"},
	// etcd3/errors.go interpretWatchError.
	{name: "etcd compacted watch", text: `The resourceVersion for the provided watch is too old.`,
		class: ClassExpired, kind: KindEtcdCompactedWatch, conf: ConfidenceHigh},
	// etcd3/errors.go interpretListError (expired).
	{name: "etcd compacted exact list", text: `The resourceVersion for the provided list is too old.`,
		class: ClassExpired, kind: KindEtcdCompactedExactList, conf: ConfidenceHigh},
	// etcd3/errors.go continueExpired.
	{name: "continue expired", text: `The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.`,
		class: ClassExpired, kind: KindContinueExpired, conf: ConfidenceHigh},
	// etcd3/errors.go inconsistentContinue.
	{name: "continue expired, fresh token", text: `The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.`,
		class: ClassExpired, kind: KindContinueExpiredInconsistent, conf: ConfidenceHigh},
	// storage/errors.go NewTooLargeResourceVersionError through apimachinery NewTimeoutError ("Timeout: %s").
	{name: "too large, bare", text: `Timeout: Too large resource version: 5000, current: 4000`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceHigh, req: "5000", cur: "4000", gap: "1000"},
	// etcd3/store.go listReadError when the current RV cannot be read ("currentRV = 0").
	{name: "too large, current unknown", text: `Timeout: Too large resource version: 5000, current: 0`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceHigh, req: "5000", cur: "0", gap: "5000"},
	// go.etcd.io/etcd/api/v3@v3.7.3/v3rpc/rpctypes/error.go ErrGRPCCompacted.
	{name: "etcd compacted", text: `etcdserver: mvcc: required revision has been compacted`,
		class: ClassExpired, kind: KindEtcdCompacted, conf: ConfidenceHigh},
	// rpctypes/error.go ErrGRPCFutureRev, as etcdctl prints a gRPC status ("Error: " + err).
	{name: "etcd future revision", text: `Error: rpc error: code = OutOfRange desc = etcdserver: mvcc: required revision is a future revision`,
		class: ClassTooLarge, kind: KindEtcdFutureRevision, conf: ConfidenceHigh},
	// format: apimachinery errors.go NewInternalError ("Internal error occurred: %v"), as
	// etcd3/watcher.go transformErrorToEvent wraps untranslated errors; message: rpctypes.
	{name: "internal error at compaction", text: `Internal error occurred: etcdserver: mvcc: required revision has been compacted`,
		class: ClassOther, kind: KindInternalErrorAtCompaction, conf: ConfidenceMedium},
	// storage/interfaces.go ValidateListOptions + api_object_versioner.go (field.Invalid).
	{name: "invalid resource version", text: `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`,
		class: ClassOther, kind: KindInvalidResourceVersion, conf: ConfidenceHigh},
	// apimachinery NewInvalid ("%s %q is invalid: %v") + internalversion/validation.
	{name: "resourceVersionMatch forbidden", text: `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`,
		class: ClassOther, kind: KindInvalidResourceVersion, conf: ConfidenceHigh},
	// storage/interfaces.go ("invalid continue token: %v") + storage/continue.go.
	{name: "invalid continue token", text: `invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`,
		class: ClassOther, kind: KindInvalidContinue, conf: ConfidenceHigh},
	// endpoints/handlers/finisher/finisher.go through NewTimeoutError.
	{name: "request timeout", text: `Timeout: request did not complete within requested timeout - context deadline exceeded`,
		class: ClassOther, kind: KindRequestTimeout},
	// server/filters/priority-and-fairness.go tooManyRequests.
	{name: "APF 429 body", text: `Too many requests, please try again later.`,
		class: ClassOther, kind: KindTooManyRequests},
	// format: kubectl pkg/cmd/util/helpers.go ("Error from server (%s): %s"); message:
	// apimachinery NewGenericServerResponse for 429.
	{name: "kubectl 429", text: `Error from server (TooManyRequests): the server has received too many requests and has asked us to try again later`,
		class: ClassOther, kind: KindTooManyRequests, conf: ConfidenceMedium, reason: "TooManyRequests"},
	// client-go tools/cache/reflector.go VeryShortWatchError.
	{name: "very short watch", text: `very short watch: k8s.io/client-go/informers/factory.go:160: Unexpected watch close - watch lasted less than a second and no items received`,
		class: ClassOther, kind: KindWatchEnded},
	// format: NewGenericServerResponse (code >= 500); message: apimachinery watch/streamwatcher.go + Go http2.
	{name: "watch stream decode failure", text: `an error on the server ("unable to decode an event from the watch stream: http2: client connection lost") has prevented the request from succeeding`,
		class: ClassOther, kind: KindConnectionReset},
	// format: client-go reflector.go:664 ("Warning: watch ended with error", klog text); message: streamwatcher.go.
	{name: "reflector watch ended", text: `I0101 10:00:00.000000       1 reflector.go:664] "Warning: watch ended with error" reflector="k8s.io/client-go/informers/factory.go:160" type="*v1.Pod" err="an error on the server (\"unable to decode an event from the watch stream: stream error: stream ID 5; INTERNAL_ERROR; received from peer\") has prevented the request from succeeding"`,
		class: ClassOther, kind: KindWatchEnded, conf: ConfidenceMedium},
	// format: reflector.go:653 ("Watch returned 429 - backing off").
	{name: "reflector 429", text: `I0101 10:00:00.000000       1 reflector.go:653] "Watch returned 429 - backing off" reflector="k8s.io/client-go/informers/factory.go:160" type="*v1.Pod"`,
		class: ClassOther, kind: KindTooManyRequests},

	// --- kubectl ---
	// https://github.com/kubernetes/kubernetes/issues/102160
	{name: "kubectl expired list", text: `Error from server (Expired): The resourceVersion for the provided list is too old.\n`,
		class: ClassExpired, kind: KindEtcdCompactedExactList, conf: ConfidenceHigh, reason: "Expired"},
	// https://github.com/kubernetes/kubernetes/issues/27248
	{name: "kubectl old watch", text: `Error from server: too old resource version: 1416148 (1585264)`,
		class: ClassExpired, kind: KindWatchCacheWindow, req: "1416148", old: "1585264", gap: "169116"},
	// format: kubectl helpers.go; message: storage/errors.go (the message of elastic/cloud-on-k8s#4087).
	{name: "kubectl too large", text: `Error from server (Timeout): Timeout: Too large resource version: 74171625, current: 68292564`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, req: "74171625", cur: "68292564", gap: "5879061", reason: "Timeout"},

	// --- client-go reflector logs (klog) ---
	// https://github.com/mailgun/gubernator/issues/53
	{name: "klog watch of ended, window", text: `W0508 18:04:04.833010       1 reflector.go:302] pkg/mod/k8s.io/client-go@v0.0.0-20190620085101-78d2af792bab/tools/cache/reflector.go:98: watch of *v1.Endpoints ended with: too old resource version: 38203386 (38203932)`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceHigh, req: "38203386", old: "38203932", gap: "546"},
	// https://github.com/werf/werf/issues/1703
	{name: "klog watch of ended, etcd", text: `W0826 14:00:37.258613    9650 reflector.go:303] pkg/mod/k8s.io/client-go@v0.0.0-20190411052641-7a6b4715b709/tools/cache/reflector.go:99: watch of *v1.Event ended with: The resourceVersion for the provided watch is too old.`,
		class: ClassExpired, kind: KindEtcdCompactedWatch},
	// https://github.com/jaegertracing/jaeger-operator/issues/103
	{name: "klog Go map dump", text: `ERROR: logging before flag.Parse: W1109 09:42:04.207951   16079 reflector.go:341] github.com/jaegertracing/jaeger-operator/vendor/github.com/operator-framework/operator-sdk/pkg/sdk/informer.go:91: watch of *unstructured.Unstructured ended with: unexpected object: &{map[code:410 kind:Status apiVersion:v1 metadata:map[] status:Failure message:The resourceVersion for the provided watch is too old. reason:Expired]}`,
		class: ClassExpired, kind: KindEtcdCompactedWatch, code: 410, reason: "Expired"},
	// https://github.com/elastic/cloud-on-k8s/issues/4087
	{name: "klog failed to list too large", text: `E0105 21:08:43.745893       1 reflector.go:178] pkg/mod/k8s.io/client-go@v0.18.6/tools/cache/reflector.go:125: Failed to list *v1beta1.EnterpriseSearch: Timeout: Too large resource version: 74171625, current: 68292564`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceHigh, req: "74171625", cur: "68292564", gap: "5879061"},
	// https://github.com/prometheus/prometheus/issues/7102 (go-kit logfmt around klog)
	{name: "logfmt klog", text: `level=warn ts=2020-05-28T09:30:46.056Z caller=klog.go:86 component=k8s_client_runtime func=Warningf msg="github.com/prometheus/prometheus/discovery/kubernetes/kubernetes.go:263: watch of *v1.Pod ended with: too old resource version: 41354348 (41356716)"`,
		class: ClassExpired, kind: KindWatchCacheWindow, req: "41354348", old: "41356716", gap: "2368"},
	// https://github.com/kubernetes-sigs/controller-runtime/issues/379
	{name: "controller-runtime klog line", text: `reflector.go:270] sigs.k8s.io/controller-runtime/pkg/cache/internal/informers_map.go:126: watch of *v1.Namespace ended with: The resourceVersion for the provided watch is too old.`,
		class: ClassExpired, kind: KindEtcdCompactedWatch},
	// format: https://github.com/home-operations/miroir/issues/175 (controller-runtime zap JSON);
	// message: storage/errors.go.
	{name: "controller-runtime JSON", text: `{"level":"error","ts":"2026-07-13T10:02:13Z","logger":"controller-runtime.cache.UnhandledError","msg":"Failed to watch","reflector":"k8s.io/client-go@v0.36.2/tools/cache/reflector.go:343","type":"*v1.Deployment","error":"failed to list *v1.Deployment: Timeout: Too large resource version: 1200, current: 1100"}`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, req: "1200", cur: "1100", gap: "100"},
	// format: https://github.com/rancher/rancher/issues/51894 (klog structured "Failed to watch");
	// message: etcd3/errors.go.
	{name: "klog structured failed to watch", text: `E0915 10:00:00.000000       1 reflector.go:158] "Failed to watch" err="failed to list *summary.SummarizedObject: The resourceVersion for the provided list is too old." logger="UnhandledError" reflector="/root/.cache/go/modcache/k8s.io/client-go@v0.33.4/tools/cache/reflector.go:285" type="*summary.SummarizedObject"`,
		class: ClassExpired, kind: KindEtcdCompactedExactList},

	// --- watch events and Status JSON ---
	// https://github.com/wso2/apk/issues/571
	{name: "watch ERROR event", text: `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 657887 (680402)","reason":"Expired","code":410}}`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceHigh, req: "657887", old: "680402", gap: "22515", code: 410, reason: "Expired"},
	// https://github.com/apache/apisix/issues/7489 (Lua informer log around a Status)
	{name: "apisix continue with token", text: `2022/07/18 11:25:49 [error] 390#390: *32338366 [lua] informer_factory.lua:292: list failed, kind: Endpoints, reason: Gone, message : {"kind":"Status","apiVersion":"v1","metadata":{"continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiM2Q4OWZlZTQwOTdjYzVhMzVjMDk0MDVmODJjOWNkOTA5NzQ4YTU5Ni1wcm8tcHJvL2htYVx1MDAwMCJ9"},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.","reason":"Expired","code":410}`,
		class: ClassExpired, kind: KindContinueExpiredInconsistent, conf: ConfidenceHigh, code: 410},
	// format: a Status as the API server writes it (apimachinery errors.go NewTimeoutError +
	// storage/errors.go causes), the TooLarge answer seen on v1.37.2 (reference/rv-semantics.md).
	{name: "TooLarge Status JSON", text: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 9000, current: 8990","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceHigh, req: "9000", cur: "8990", gap: "10", code: 504, reason: "Timeout"},
	// format: Status JSON; message: storage/cacher/delegator.go (429 with the TooLarge text).
	{name: "429 consistent read lag", text: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 700, current: 690","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`,
		class: ClassTooLarge, kind: KindConsistentReadCacheLagging, req: "700", cur: "690", gap: "10", code: 429},

	// --- Python kubernetes client ---
	// https://github.com/kr8s-org/kr8s/issues/476 (a Status as a Python dict)
	{name: "python dict status", text: `Failed to wait job completion {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure', 'message': 'too old resource version: 546533173 (546535534)', 'reason': 'Expired', 'code': 410}: BoxValueError('Cannot extrapolate Box from string')`,
		class: ClassExpired, kind: KindWatchCacheWindow, req: "546533173", old: "546535534", gap: "2361", code: 410, reason: "Expired"},
	// format: kubernetes-client/python kubernetes/client/exceptions.py ApiException.__str__ and
	// kubernetes/base/watch/watch.py (reason = "%s: %s" % (obj['reason'], obj['message'])).
	{name: "python watch ApiException", text: "kubernetes.client.exceptions.ApiException: (410)\nReason: Expired: too old resource version: 123 (456)\n",
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceHigh, req: "123", old: "456", gap: "333", code: 410, reason: "Expired"},
	// format: exceptions.py with an HTTP response (headers, body as bytes); message: etcd3/errors.go.
	{name: "python list ApiException with body", text: "(410)\nReason: Gone\nHTTP response headers: HTTPHeaderDict({'Audit-Id': '1f0c', 'Content-Type': 'application/json'})\nHTTP response body: b'{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"The resourceVersion for the provided list is too old.\",\"reason\":\"Expired\",\"code\":410}\\n'\n",
		class: ClassExpired, kind: KindEtcdCompactedExactList, conf: ConfidenceHigh, code: 410},
	// format: exceptions.py with no body.
	{name: "python bare 410", text: "(410)\nReason: Gone\n",
		class: ClassExpired, kind: KindGone, conf: ConfidenceMedium, code: 410, reason: "Gone"},
	// https://github.com/openshift-eng/art-tools/pull/1043
	{name: "python reason line", text: `Reason: Expired: too old resource version: 9 (12)`,
		class: ClassExpired, kind: KindWatchCacheWindow, req: "9", old: "12", gap: "3", reason: "Expired"},

	// --- Java: fabric8 and the official client ---
	// https://github.com/kubernetes/kubernetes/issues/98564
	{name: "fabric8 client exception", text: `io.fabric8.kubernetes.client.KubernetesClientException: too old resource version: 51780364 (52677017)`,
		class: ClassExpired, kind: KindWatchCacheWindow, req: "51780364", old: "52677017", gap: "896653"},
	// https://github.com/fabric8io/kubernetes-client/issues/5372
	{name: "fabric8 watcher exception", text: `o.fabric8.kubernetes.client.WatcherException: too old resource version: 2262939 (6575374)`,
		class: ClassExpired, kind: KindWatchCacheWindow, req: "2262939", old: "6575374", gap: "4312435"},
	// https://github.com/fabric8io/kubernetes-client/issues/1318
	{name: "fabric8 etcd watch", text: `io.fabric8.kubernetes.client.KubernetesClientException: The resourceVersion for the provided watch is too old.`,
		class: ClassExpired, kind: KindEtcdCompactedWatch},
	// fabric8 informers' Reflector debug log ("Watch restarting due to http gone for {}").
	{name: "fabric8 http gone", text: `DEBUG Reflector - Watch restarting due to http gone for v1/namespaces/default/pods`,
		class: ClassExpired, kind: KindGone, conf: ConfidenceLow},
	// https://github.com/kubernetes-client/java/issues/1533
	{name: "java ApiException Gone", text: `io.kubernetes.client.openapi.ApiException: Gone`,
		class: ClassExpired, kind: KindGone},
	// kubernetes-client/java ReflectorRunnable.java.
	{name: "java reflector expired", text: `ResourceVersion 424242 expired, will retry w/o resourceVersion at the next time`,
		class: ClassExpired, kind: KindGone, conf: ConfidenceMedium, req: "424242"},
	// format: kubernetes-client/java ApiException.getMessage ("Message: %s%nHTTP response code: %s%nHTTP response body: %s"); message: etcd3/errors.go.
	{name: "java ApiException message", text: "io.kubernetes.client.openapi.ApiException: Message: Gone\nHTTP response code: 410\nHTTP response body: {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.\",\"reason\":\"Expired\",\"code\":410}\nHTTP response headers: {}",
		class: ClassExpired, kind: KindContinueExpired, code: 410, reason: "Expired"},
	// format: ReflectorRunnable.java ("got ERROR event and its status: %s") with the generated V1Status.toString.
	{name: "java V1Status dump", text: "got ERROR event and its status: class V1Status {\n    apiVersion: v1\n    code: 410\n    details: null\n    kind: Status\n    message: too old resource version: 123 (456)\n    metadata: class V1ListMeta {\n    }\n    reason: Expired\n    status: Failure\n}",
		class: ClassExpired, kind: KindWatchCacheWindow, req: "123", old: "456", gap: "333", code: 410, reason: "Expired"},

	// --- JavaScript (@kubernetes/client-node) ---
	// format: src/gen/apis/exception.ts ("HTTP-Code: " + code + "\nMessage: " + message + "\nBody: " + JSON.stringify(body)),
	// message from the generated response processors; body: a Status string, so JSON-encoded twice.
	{name: "js ApiException", text: "HTTP-Code: 410\nMessage: Unknown API Status Code!\nBody: \"{\\\"kind\\\":\\\"Status\\\",\\\"apiVersion\\\":\\\"v1\\\",\\\"metadata\\\":{},\\\"status\\\":\\\"Failure\\\",\\\"message\\\":\\\"The resourceVersion for the provided list is too old.\\\",\\\"reason\\\":\\\"Expired\\\",\\\"code\\\":410}\\n\"\nHeaders: {\"content-type\":\"application/json\"}",
		class: ClassExpired, kind: KindEtcdCompactedExactList, code: 410},
	// format: src/watch.ts (new Error(response.statusText) with statusCode) as Node prints it.
	{name: "js watch error", text: "Error: Gone\n    at Watch.watch (/app/node_modules/@kubernetes/client-node/dist/watch.js:52:31) {\n  statusCode: 410\n}",
		class: ClassExpired, kind: KindGone, code: 410},

	// --- HTTP and client-go request traces ---
	// curl -i: the status line of a 410.
	{name: "HTTP status line", text: `HTTP/1.1 410 Gone`,
		class: ClassExpired, kind: KindGone, conf: ConfidenceLow, code: 410},
	// format: https://github.com/kyverno/kyverno/issues/2069 (round_trippers.go "GET url status in N milliseconds").
	{name: "round_trippers 410 watch", text: `I0813 11:08:48.194005       1 round_trippers.go:454] GET https://172.20.0.1:443/api/v1/namespaces/default/pods?resourceVersion=12345&watch=true 410 Gone in 5 milliseconds`,
		class: ClassExpired, kind: KindGone, req: "12345", code: 410},
	// format: client-go v0.37.2 transport/round_trippers.go ("Response" verb url status milliseconds).
	{name: "round_trippers 504 list", text: `I0102 10:00:00.000000   12345 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:6443/api/v1/namespaces/demo/configmaps?resourceVersion=900&resourceVersionMatch=NotOlderThan" status="504 Gateway Timeout" milliseconds=3004`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceLow, req: "900", code: 504},

	// --- kube-apiserver and etcd logs ---
	// https://github.com/k3s-io/k3s/issues/4419
	{name: "apiserver watch chan error", text: `Nov 08 09:11:40 k3s-20-222 k3s[10410]: W1108 09:11:40.326219   10410 watcher.go:220] watch chan error: etcdserver: mvcc: required revision has been compacted`,
		class: ClassExpired, kind: KindEtcdCompacted},

	// --- Every log format, the new classes and damaged numbers ---
	// format: client-go v0.17 and older reflector.go ("%s: watch of %v ended with: %v", klog text);
	// message: cacher/watch_cache_history.go.
	{name: "klog watch of ended, ConfigMap", text: `W1130 04:11:48.123456       1 reflector.go:561] k8s.io/client-go/informers/factory.go:160: watch of *v1.ConfigMap ended with: too old resource version: 214 (257)`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceHigh, req: "214", old: "257", gap: "43"},
	// The same line cut before the closing parenthesis (a truncating log pipeline).
	{name: "klog window cut", text: `W1130 04:11:48.123456       1 reflector.go:561] k8s.io/client-go/informers/factory.go:160: watch of *v1.ConfigMap ended with: too old resource version: 214 (25`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceMedium, req: "214", note: "oldest servable RV is missing"},
	{name: "window cut after the parenthesis", text: `too old resource version: 214 (`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceMedium, req: "214", note: "before the closing parenthesis"},
	// The TooLarge line cut after its first number.
	{name: "too large cut", text: `E1130 04:11:48.123456       1 reflector.go:227] "Failed to watch" err="failed to list *v1.ConfigMap: Timeout: Too large resource version: 5000, curr`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceMedium, req: "5000", note: "current RV is missing"},
	// RVs that do not fit in 64 bits: kept whole as text, never cut to 20 digits.
	{name: "23-digit RVs", text: `too old resource version: 12345678901234567890123 (12345678901234567890200)`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceLow, req: "12345678901234567890123", old: "12345678901234567890200", note: "not a number this server could have issued"},
	{name: "23-digit too large", text: `Timeout: Too large resource version: 99999999999999999999999, current: 400`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceLow, req: "99999999999999999999999", cur: "400", note: "23 digits"},
	// format: client-go v0.37.2 reflector.go DefaultWatchErrorHandler through apimachinery
	// util/runtime HandleErrorWithContext (klog structured text, logger "UnhandledError");
	// message: cacher/ready.go.
	{name: "klog failed to watch, initializing", text: `E1130 04:11:48.123456       1 reflector.go:227] "Failed to watch" err="failed to list *v1.ConfigMap: storage is (re)initializing" logger="UnhandledError" reflector="k8s.io/client-go/informers/factory.go:160" type="*v1.ConfigMap"`,
		class: ClassOther, kind: KindWatchCacheInitializing, conf: ConfidenceHigh, code: 429},
	// format: reflector.go:664 "Warning: watch ended with error" (klog structured text);
	// message: etcd3/event.go parseEvent through etcd3/watcher.go transformErrorToEvent (NewInternalError).
	{name: "klog watch ended, PrevKv=nil", text: `I1130 04:11:48.123456       1 reflector.go:664] "Warning: watch ended with error" reflector="k8s.io/client-go/informers/factory.go:160" type="*v1.ConfigMap" err="Internal error occurred: etcd event received with PrevKv=nil (key=\"/registry/configmaps/demo/cm-7\", modRevision=1043, type=PUT)"`,
		class: ClassOther, kind: KindWatchEventLostAtCompaction, conf: ConfidenceHigh, old: "1043", msg: "modRevision=1043, type=PUT)"},
	// format: etcd3/watcher.go logWatchChannelErr (klog.Errorf "watch chan error: %v").
	{name: "apiserver log, PrevKv=nil", text: `E1130 04:11:48.123456       1 watcher.go:425] watch chan error: etcd event received with PrevKv=nil (key="/registry/configmaps/demo/cm-7", modRevision=1043, type=PUT)`,
		class: ClassOther, kind: KindWatchEventLostAtCompaction, conf: ConfidenceHigh, old: "1043"},
	// format: a watch ERROR event as the v1.37.2 server sends it (reference/rv-semantics.md;
	// apimachinery NewInternalError: reason InternalError, code 500, the error as a cause).
	{name: "watch ERROR event, PrevKv=nil", text: `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: etcd event received with PrevKv=nil (key=\"/registry/configmaps/demo/cm-7\", modRevision=1043, type=PUT)","reason":"InternalError","details":{"causes":[{"message":"etcd event received with PrevKv=nil (key=\"/registry/configmaps/demo/cm-7\", modRevision=1043, type=PUT)"}]},"code":500}}`,
		class: ClassOther, kind: KindWatchEventLostAtCompaction, conf: ConfidenceHigh, old: "1043", code: 500, reason: "InternalError"},
	{name: "PrevKv=nil cut before the revision", text: `watch chan error: etcd event received with PrevKv=nil (key="/registry/configmaps/demo/cm-7", modRev`,
		class: ClassOther, kind: KindWatchEventLostAtCompaction, conf: ConfidenceMedium, note: "modRevision=R"},

	// controller-runtime (zap JSON). format: controller-runtime internal/controller "Reconciler error";
	// message: apimachinery NewConflict ("Operation cannot be fulfilled on %s %q: %v") + store.go OptimisticLockErrorMsg.
	{name: "controller-runtime reconciler conflict", text: `{"level":"error","ts":"2026-11-30T04:11:48Z","msg":"Reconciler error","controller":"configmap","controllerGroup":"","controllerKind":"ConfigMap","ConfigMap":{"name":"cm-7","namespace":"demo"},"namespace":"demo","name":"cm-7","reconcileID":"5f0c6a8e-2b1d-4a52-9a55-3f3a0c7f1e21","error":"Operation cannot be fulfilled on configmaps \"cm-7\": the object has been modified; please apply your changes to the latest version and try again"}`,
		class: ClassOther, kind: KindConflict, conf: ConfidenceHigh, code: 409, msg: `Operation cannot be fulfilled on configmaps "cm-7": the object has been modified; please apply`},
	// format: controller-runtime's UnhandledError logger (zap JSON, as in the sample above); message: cacher/ready.go.
	{name: "controller-runtime initializing", text: `{"level":"error","ts":"2026-11-30T04:11:48Z","logger":"controller-runtime.cache.UnhandledError","msg":"Failed to watch","reflector":"k8s.io/client-go@v0.37.2/tools/cache/reflector.go:385","type":"*v1.ConfigMap","error":"failed to list *v1.ConfigMap: storage is (re)initializing"}`,
		class: ClassOther, kind: KindWatchCacheInitializing, code: 429},
	// format: controller-runtime zap JSON; message: storage/errors.go ErrResourceVersionSetOnCreate.
	{name: "controller-runtime create with RV", text: `{"level":"error","ts":"2026-11-30T04:11:48Z","msg":"Reconciler error","controller":"web","namespace":"demo","name":"web","reconcileID":"0b8f1d2e-3c4a-4e5f-8a9b-0c1d2e3f4a5b","error":"resourceVersion should not be set on objects to be created"}`,
		class: ClassOther, kind: KindResourceVersionSetOnCreate, conf: ConfidenceHigh},

	// logrus (text formatter: time=, level=, msg=, error= quoted with strconv.Quote).
	{name: "logrus conflict", text: `time="2026-11-30T04:11:48Z" level=error msg="failed to update lease" error="Operation cannot be fulfilled on leases.coordination.k8s.io \"my-lock\": the object has been modified; please apply your changes to the latest version and try again"`,
		class: ClassOther, kind: KindConflict, code: 409, msg: `leases.coordination.k8s.io "my-lock"`},
	{name: "logrus watch window", text: `time="2026-11-30T04:11:48Z" level=warning msg="watch ended" error="too old resource version: 214 (257)" resource=configmaps`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceHigh, req: "214", old: "257", gap: "43"},

	// fabric8: a public Keycloak operator log (fabric8 informer Reflector, "listSyncAndWatch
	// failed", KubernetesClientException with the Status toString); message: cacher/ready.go.
	{name: "fabric8 initializing", text: `2024-11-19 00:02:02,514 ERROR [io.fab.kub.cli.inf.imp.cac.Reflector] (vert.x-eventloop-thread-0) listSyncAndWatch failed for k8s.keycloak.org/v2alpha1/namespaces/default/keycloaks, will stop: java.util.concurrent.CompletionException: io.fabric8.kubernetes.client.KubernetesClientException: Failure executing: GET at: https://10.96.0.1:443/apis/k8s.keycloak.org/v2alpha1/namespaces/default/keycloaks?resourceVersion=0. Message: storage is (re)initializing. Received status: Status(apiVersion=v1, code=429, details=StatusDetails(causes=[], group=null, kind=null, name=null, retryAfterSeconds=1, uid=null, additionalProperties={}), kind=Status, message=storage is (re)initializing, metadata=ListMeta(_continue=null, remainingItemCount=null, resourceVersion=null, selfLink=null, additionalProperties={}), reason=TooManyRequests, status=Failure, additionalProperties={}).`,
		class: ClassOther, kind: KindWatchCacheInitializing, conf: ConfidenceHigh, code: 429, reason: "TooManyRequests"},
	// format: the same fabric8 KubernetesClientException for a PUT; message: NewConflict.
	{name: "fabric8 conflict", text: `io.fabric8.kubernetes.client.KubernetesClientException: Failure executing: PUT at: https://10.96.0.1:443/api/v1/namespaces/demo/configmaps/cm-7. Message: Operation cannot be fulfilled on configmaps "cm-7": the object has been modified; please apply your changes to the latest version and try again. Received status: Status(apiVersion=v1, code=409, details=StatusDetails(causes=[], group=null, kind=configmaps, name=cm-7, retryAfterSeconds=null, uid=null, additionalProperties={}), kind=Status, message=Operation cannot be fulfilled on configmaps "cm-7": the object has been modified; please apply your changes to the latest version and try again, metadata=ListMeta(_continue=null, remainingItemCount=null, resourceVersion=null, selfLink=null, additionalProperties={}), reason=Conflict, status=Failure, additionalProperties={}).`,
		class: ClassOther, kind: KindConflict, conf: ConfidenceHigh, code: 409, reason: "Conflict"},

	// Python: exceptions.py in a python-json-logger record (the traceback's newlines escaped).
	{name: "python JSON log traceback", text: `{"asctime": "2026-11-30 04:11:48,123", "levelname": "ERROR", "message": "watch failed", "exc_info": "Traceback (most recent call last):\n  File \"/app/main.py\", line 42, in run\n    for event in w.stream(v1.list_namespaced_config_map, \"demo\"):\nkubernetes.client.exceptions.ApiException: (410)\nReason: Expired: too old resource version: 214 (257)\n"}`,
		class: ClassExpired, kind: KindWatchCacheWindow, req: "214", old: "257", code: 410, reason: "Expired"},
	// format: exceptions.py with its lines folded into one by a log shipper.
	{name: "python folded ApiException", text: `kubernetes.client.exceptions.ApiException: (410) Reason: Gone`,
		class: ClassExpired, kind: KindGone, conf: ConfidenceMedium, code: 410, reason: "Gone"},
	// format: exceptions.py with a decoded body; message: registry store.go (422 with details),
	// as the Python client prints a custom resource update without a resourceVersion.
	{name: "python 422 update without RV", text: "(422)\nReason: Unprocessable Entity\nHTTP response headers: HTTPHeaderDict({'Content-Type': 'application/json'})\nHTTP response body: {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"foos.example.com \\\"demo\\\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update\",\"reason\":\"Invalid\",\"details\":{\"name\":\"demo\",\"group\":\"example.com\",\"kind\":\"foos\",\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: 0x0: must be specified for an update\",\"field\":\"metadata.resourceVersion\"}]},\"code\":422}\n",
		class: ClassOther, kind: KindResourceVersionMissingOnUpdate, conf: ConfidenceHigh, code: 422, msg: "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"},

	// kube-rs: kube::Error::Api ("ApiError: {0} ({0:?})") over kube_core::ErrorResponse ("{message}: {reason}").
	{name: "kube-rs watch window", text: `ApiError: too old resource version: 214 (257): Expired (ErrorResponse { status: "Failure", message: "too old resource version: 214 (257)", reason: "Expired", code: 410 })`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceHigh, req: "214", old: "257", gap: "43", code: 410, reason: "Expired"},
	{name: "kube-rs conflict", text: `ApiError: Operation cannot be fulfilled on configmaps "cm-7": the object has been modified; please apply your changes to the latest version and try again: Conflict (ErrorResponse { status: "Failure", message: "Operation cannot be fulfilled on configmaps \"cm-7\": the object has been modified; please apply your changes to the latest version and try again", reason: "Conflict", code: 409 })`,
		class: ClassOther, kind: KindConflict, conf: ConfidenceHigh, code: 409, reason: "Conflict"},

	// .NET: KubernetesClient (k8s.Autorest.HttpOperationException, "Operation returned an invalid status code '{0}'").
	{name: ".NET 410", text: `k8s.Autorest.HttpOperationException: Operation returned an invalid status code 'Gone'`,
		class: ClassExpired, kind: KindGone, conf: ConfidenceLow, code: 410},
	// format: kubernetes-client/csharp Watcher (an ERROR event thrown as KubernetesException(V1Status), its Message the Status message).
	{name: ".NET watch", text: `Unhandled exception. k8s.KubernetesException: too old resource version: 214 (257)`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceHigh, req: "214", old: "257"},

	// etcd. format: etcd client v3.7.3 retry_interceptor.go ("retrying of unary invoker failed", zap JSON); message: rpctypes.
	{name: "etcd client retry", text: `{"level":"warn","ts":"2026-11-30T04:11:48.123Z","logger":"etcd-client","caller":"v3@v3.7.3/retry_interceptor.go:68","msg":"retrying of unary invoker failed","target":"etcd-endpoints://0xc0001b2000/127.0.0.1:2379","method":"/etcdserverpb.KV/Range","attempt":0,"error":"rpc error: code = OutOfRange desc = etcdserver: mvcc: required revision has been compacted"}`,
		class: ClassExpired, kind: KindEtcdCompacted, conf: ConfidenceHigh},
	// etcd v2, as the Kubernetes fluentd-elasticsearch addon config quotes a kube-scheduler line.
	{name: "etcd v2 index cleared", text: `W0204 06:49:18.239674       7 reflector.go:245] pkg/scheduler/factory/factory.go:193: watch of *api.Service ended with: 401: The event in requested index is outdated and cleared (the requested history has been cleared [2578313/2577886]) [2579312]`,
		class: ClassExpired, kind: KindEtcdV2IndexCleared, conf: ConfidenceHigh, req: "2577886", old: "2578313", gap: "427"},
	// linkerd's namer test (a watch ERROR event recorded from a Kubernetes 1.x API server on etcd2).
	{name: "etcd v2 watch event", text: `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"401: The event in requested index is outdated and cleared (the requested history has been cleared [4770862/4659254]) [4771861]"}}`,
		class: ClassExpired, kind: KindEtcdV2IndexCleared, conf: ConfidenceHigh, req: "4659254", old: "4770862", gap: "111608"},
	{name: "etcd v2 cut", text: `401: The event in requested index is outdated and cleared (the requested history has been cleared [2578313/25`,
		class: ClassExpired, kind: KindEtcdV2IndexCleared, conf: ConfidenceMedium, old: "2578313", note: "cut"},

	// Older and shorter wordings of Expired.
	// Kubernetes 1.8 staging/src/k8s.io/apiserver/pkg/storage/etcd3/errors.go interpretListError (paging).
	{name: "from parameter too old", text: `Error from server (Expired): The provided from parameter is too old to display a consistent list result. You must start a new list without the from.`,
		class: ClassExpired, kind: KindContinueExpired, conf: ConfidenceHigh, reason: "Expired"},
	// The wording without numbers, as fakes and proxies write it and cut logs leave it.
	{name: "bare too old", text: `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}}`,
		class: ClassExpired, kind: KindTooOldResourceVersion, conf: ConfidenceLow, code: 410, note: "none of the numbers"},
	// The v1.37.2 status cause's message alone (storage/errors.go
	// tooLargeResourceVersionCauseMsg), as client-go's reflector matches it
	// and a retold log keeps it (fresh user try 33 F5: it went unrecognized).
	{name: "bare too large", text: `Too large resource version`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceLow, note: "none of the numbers"},

	// kubectl. format: kubectl cmd/util/helpers.go StandardErrorMessage and "error when %s %q: %v".
	{name: "kubectl replace conflict", text: `Error from server (Conflict): error when replacing "cm.yaml": Operation cannot be fulfilled on configmaps "cm-7": the object has been modified; please apply your changes to the latest version and try again`,
		class: ClassOther, kind: KindConflict, conf: ConfidenceHigh, reason: "Conflict", code: 409},
	{name: "kubectl initializing", text: `Error from server (TooManyRequests): storage is (re)initializing`,
		class: ClassOther, kind: KindWatchCacheInitializing, conf: ConfidenceHigh, reason: "TooManyRequests"},
	// A 500 without a reason: "Error from server: %s".
	{name: "kubectl create with RV", text: `Error from server: error when creating "cm.yaml": resourceVersion should not be set on objects to be created`,
		class: ClassOther, kind: KindResourceVersionSetOnCreate, conf: ConfidenceHigh},
	// format: kubectl checkErr for reason Invalid with causes ("The %s %q is invalid: " + field: message),
	// as quoted in the cluster-api-provider docs (kubectl scale of a MachineDeployment).
	{name: "kubectl 422 update without RV", text: `The machinedeployments "pool1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
		class: ClassOther, kind: KindResourceVersionMissingOnUpdate, conf: ConfidenceHigh, code: 422},
	// istio's notes: kubectl apply's client-side to server-side apply migration.
	{name: "kubectl apply 422", text: `error when patching "/dev/shm/istio.yaml": validatingwebhookconfigurations.admissionregistration.k8s.io "istio-validator-istio-system" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
		class: ClassOther, kind: KindResourceVersionMissingOnUpdate},
	// Status JSON, as the v1.37.2 cacher answers (NewTooManyRequests with retryAfterSeconds).
	{name: "initializing Status JSON", text: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"storage is (re)initializing","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`,
		class: ClassOther, kind: KindWatchCacheInitializing, conf: ConfidenceHigh, code: 429, reason: "TooManyRequests"},

	// --- Not RV errors: must stay Unrecognized ---
	// A bare 409 is as likely AlreadyExists as a Conflict.
	{name: ".NET bare 409", text: `k8s.Autorest.HttpOperationException: Operation returned an invalid status code 'Conflict'`, class: ClassUnrecognized},
	{name: "kubectl already exists", text: `Error from server (AlreadyExists): error when creating "cm.yaml": configmaps "cm-7" already exists`, class: ClassUnrecognized},
	// etcd v3.7.3 server/storage/mvcc/kvstore_compaction.go: a compaction is not an error.
	{name: "etcd compaction done", text: `{"level":"info","ts":"2026-11-30T04:11:48.123Z","caller":"mvcc/kvstore_compaction.go:71","msg":"finished scheduled compaction","compact-revision":1043,"took":"1.2ms","hash":1234567,"current-db-size-bytes":2097152}`, class: ClassUnrecognized},
	{name: "update validation, other field", text: `The configmaps "cm-7" is invalid: metadata.name: Invalid value: "Cm_7": must be specified for an update`, class: ClassUnrecognized},
	// --- Not RV errors (original set) ---
	// https://github.com/flant/shell-operator/issues/429
	{name: "shell-operator unknown", text: `{"level":"error","msg":"E1005 12:17:06.718118      10 reflector.go:127] pkg/mod/k8s.io/client-go@v0.19.11/tools/cache/reflector.go:156: Failed to watch *unstructured.Unstructured: unknown\n","source":"klog","time":"2022-10-05T12:17:06Z"}`,
		class: ClassUnrecognized},
	// https://github.com/apache/apisix-ingress-controller/issues/874
	{name: "404 not found", text: `E0217 10:45:31.493142       1 reflector.go:138] pkg/mod/k8s.io/client-go@v0.22.4/tools/cache/reflector.go:167: Failed to watch *v2beta3.ApisixConsumer: failed to list *v2beta3.ApisixConsumer: the server could not find the requested resource (get apisixconsumers.apisix.apache.org)`,
		class: ClassUnrecognized},
	{name: "numbers in parentheses", text: `processed 214 (257) items in 410 ms`, class: ClassUnrecognized},
	{name: "empty", text: "   \n", class: ClassUnrecognized},
}

func TestFromTextSamples(t *testing.T) {
	if len(samples) < 40 {
		t.Fatalf("only %d samples", len(samples))
	}
	for _, s := range append(samples, rewordedSamples...) {
		t.Run(s.name, func(t *testing.T) {
			d := FromText(s.text)
			if d.Class != s.class || d.Kind != s.kind {
				t.Fatalf("got %s/%s (%s), want %s/%s\n%s", d.Class, d.Kind, d.Confidence, s.class, s.kind, s.text)
			}
			check := func(field, got, want string) {
				if want != "" && got != want {
					t.Errorf("%s = %q, want %q", field, got, want)
				}
			}
			check("confidence", d.Confidence, s.conf)
			check("requested", d.RequestedResourceVersion, s.req)
			check("oldest", d.OldestResourceVersion, s.old)
			check("current", d.CurrentResourceVersion, s.cur)
			check("gap", d.Gap, s.gap)
			check("reason", d.Reason, s.reason)
			if s.note != "" && !contains(strings.Join(d.Notes, "\n"), s.note) {
				t.Errorf("notes %q lack %q", d.Notes, s.note)
			}
			if s.msg != "" && !contains(d.Message, s.msg) {
				t.Errorf("message %q lacks %q", d.Message, s.msg)
			}
			if s.code != 0 && d.Code != s.code {
				t.Errorf("code = %d, want %d", d.Code, s.code)
			}
			if d.Summary == "" || d.Fix == "" || (d.Recognized() && (d.What == "" || d.Why == "" || d.ClientGo == "")) {
				t.Errorf("missing texts: %+v", d)
			}
		})
	}
}

// TestOnlyAResourceVersionCauseTakesTheRVFix: the error line of a 5xx
// takes the classifier's fix only where the cause is the request's RV
// (a rerun meets it again); a timeout or a 429 keeps "check the server".
func TestOnlyAResourceVersionCauseTakesTheRVFix(t *testing.T) {
	seen := map[bool]int{}
	for _, s := range samples {
		d := FromText(s.text)
		want := s.class == ClassExpired || s.class == ClassTooLarge || s.kind == KindInternalErrorAtCompaction || s.kind == KindWatchEventLostAtCompaction
		if s.kind == KindRequestTimeout || s.kind == KindTooManyRequests || s.kind == KindServerError {
			want = false
		}
		if got := d.CausedByResourceVersion(); got != want {
			t.Errorf("%s: CausedByResourceVersion %v, want %v (kind %s)", s.name, got, want, d.Kind)
		}
		seen[want]++
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("samples cover one side only: %v", seen)
	}
}
