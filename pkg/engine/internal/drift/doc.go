// Package drift tells whether a live object still holds what was applied,
// and what is left to others. A Detector compares the rendered fields with
// the live ones in the API server's terms (StoredForms: each object's stored
// form, made once per render digest or learnt from the API server's answer)
// and remembers the last resourceVersion that matched, so an unchanged
// object costs one map lookup; it reports a drift once per change. Ignore
// rules (IgnoreRule, CompileIgnoreRules) name fields drift detection skips
// and, once another field manager owns them, writes leave alone
// (LeaveToOthers).
package drift
