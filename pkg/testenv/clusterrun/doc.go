// Package clusterrun runs what makes an API server a whole local cluster:
// kube-controller-manager with every default controller, kube-scheduler, and
// kwok, which simulates Nodes and moves pods through their phases by the
// stages of stages.yaml; and it creates those Nodes and waits until they are
// Ready. The test environments (pkg/testenv) run the parts as child
// processes; `wavekit cluster create` (internal/localcluster) as processes that
// outlive it.
//
// kwok simulates no containers: no image is pulled, no command runs, no
// probe is called, so readiness is kwok's stage and not the program's. There
// is no network either: pods get IPs from kwok (PodRange) and Services list
// them as endpoints, but nothing answers on them, and kube-apiserver reaches
// none of them: its egress gate (package egress) refuses them.
package clusterrun
