package crdschema

// foldNullBranches takes the branches of anyOf and oneOf that only allow
// null out of them, making the node nullable; one branch left is merged into
// the node, as allOf would be ("a string or null" is a nullable string).
func (n *nodeConversion) foldNullBranches() (map[string]any, error) {
	s := n.s
	for _, k := range []string{"anyOf", "oneOf"} {
		list, ok := s[k].([]any)
		if !ok {
			continue
		}
		var kept []any
		for _, b := range list {
			if isNullOnly(b) {
				n.nullable = true
				continue
			}
			kept = append(kept, b)
		}
		if len(kept) == len(list) {
			continue
		}
		s = copyMap(s)
		delete(s, k)
		switch len(kept) {
		case 0:
		case 1:
			branch, ok := kept[0].(map[string]any)
			if !ok {
				continue
			}
			resolved, rloc, err := n.c.resolve(branch, location{path: n.loc.path, at: n.loc.keyword(k), refs: n.loc.refs})
			if err != nil {
				return nil, err
			}
			if resolved == nil {
				continue
			}
			folded, err := n.c.foldAllOf(resolved, rloc)
			if err != nil {
				return nil, err
			}
			if err := n.c.mergeInto(s, folded, rloc); err != nil {
				return nil, err
			}
		default:
			s[k] = kept
		}
	}
	return s, nil
}

func isNullOnly(b any) bool {
	m, ok := b.(map[string]any)
	if !ok {
		return false
	}
	names := typeNames(m["type"])
	if len(names) != 1 || names[0] != "null" {
		return false
	}
	for k := range m {
		if k != "type" && k != "description" && k != "title" {
			return false
		}
	}
	return true
}
