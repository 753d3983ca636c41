package component

import "fmt"

// identity returns the user and groups a component's target is used as: the
// service account it names, else, with the lockdown on
// (ReconcilerOptions.DefaultServiceAccount), the default service account of
// its own namespace; empty for the operator's own identity.
func (t *targets) identity(c Component) (string, []string) {
	if ic, ok := optional[ImpersonationConfiguration](c); ok && ic.GetImpersonationUser() != "" {
		return ic.GetImpersonationUser(), ic.GetImpersonationGroups()
	}
	if t.opts.DefaultServiceAccount != "" {
		return "system:serviceaccount:" + c.GetNamespace() + ":" + t.opts.DefaultServiceAccount, nil
	}
	return "", nil
}

// checkRefs refuses, with ReconcilerOptions.NoCrossNamespaceRefs, a
// component that places its objects in a namespace other than its own.
func (t *targets) checkRefs(c Component) error {
	if !t.opts.NoCrossNamespaceRefs {
		return nil
	}
	if ns := placementNamespace(c); ns != c.GetNamespace() {
		return fmt.Errorf("placement namespace %s is not the component's namespace %s: cross-namespace references are refused (NoCrossNamespaceRefs, --no-cross-namespace-refs)", ns, c.GetNamespace())
	}
	return nil
}

// placementNamespace is the namespace a component's objects go to by default.
func placementNamespace(c Component) string {
	if pc, ok := optional[PlacementConfiguration](c); ok && pc.GetDeploymentNamespace() != "" {
		return pc.GetDeploymentNamespace()
	}
	return c.GetNamespace()
}
