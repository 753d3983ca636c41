// Package fleettest holds what the suites of ComponentSets over several
// clusters share (test/fleet, whose clusters are pushed to, and test/agent,
// whose clusters also pull with agents): the scheme of the hub (Scheme), the
// hub and its member clusters started at once and stopped when the suite
// ends (Start), the operator binary running on the hub as the operator
// chart's ServiceAccount with the chart's RBAC (OperatorIdentity,
// Hub.StartOperator), and what the specs read and change: a set, its Ready
// reason and its Events, the label a set selects a cluster Secret by, the
// values of the suites' sources (a greeting) and the ConfigMap they put on
// a member.
package fleettest
