package diagnose

import "strings"

// contradicted is d told as what the text claims, after --check measured
// against the claims (Reconcile: "it was answered by storage", "RV 600
// expired in this cluster's history"). It is the one rewriter of every
// field that states them: the headline (Summary) says the text says it,
// and what happened, why and the fix say first that they hold only if the
// claims do (adversary try 28 F8: the headline kept stating compaction as
// fact). The kinds whose texts say who answered (watchCacheOf) are filled
// again with who serves the Reflector's reads for either setup; client-go's
// paragraph, so filled, states no claim (it is what client-go does with
// the error). The texts of a text whose numbers are inconsistent are the
// text's claim already.
func contradicted(d Diagnosis, claims []string) Diagnosis {
	if d.Inconsistent != "" || !d.Recognized() {
		return d
	}
	if a, ok := advices[d.Kind]; ok && watchCacheOf(d.Kind) != "" {
		d.What, d.Why, d.ClientGo, d.Fix = fillServed(d, a.what, ""), fillServed(d, a.why, ""), fillServed(d, a.clientGo, ""), fillServed(d, a.fix, "")
	}
	cond := "If " + strings.Join(claims, ", and ") + ", as the text says (this server, checked now, says otherwise: see the Note): "
	d.Summary = "the text says: " + d.Summary + "; but checked now, this server says otherwise (see the Note)"
	for _, p := range []*string{&d.What, &d.Why, &d.Fix} {
		if *p != "" {
			*p = cond + *p
		}
	}
	return d
}
