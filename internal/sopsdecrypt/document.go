package sopsdecrypt

import (
	"bytes"
	"crypto/sha512"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// macOnlyEncryptedStart starts the hash of a file with mac_only_encrypted,
// so that its MAC differs from the one over every value (SOPS's constant).
var macOnlyEncryptedStart = []byte{0x8a, 0x3f, 0xd2, 0xad, 0x54, 0xce, 0x66, 0x52, 0x7b, 0x10, 0x34, 0xf3, 0xd1, 0x47, 0xbe, 0xb,
	0xb, 0x97, 0x5b, 0x3b, 0xf4, 0x4f, 0x72, 0xc6, 0xfd, 0xad, 0xec, 0x81, 0x76, 0xf2, 0x7d, 0x69}

// DecryptDocument decrypts a SOPS-encrypted YAML (or JSON, which is YAML)
// document, such as a values file, checks its MAC, and returns it as YAML,
// without comments.
func (k *Keys) DecryptDocument(data []byte) ([]byte, error) {
	docs, meta, err := readDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("reading the document: %w", err)
	}
	d, err := k.decrypter(meta)
	if err != nil {
		return nil, err
	}
	d.mac = sha512.New()
	if meta.MACOnlyEncrypted {
		d.mac.Write(macOnlyEncryptedStart)
	}
	for _, doc := range docs {
		if _, err := d.walk(doc, nil); err != nil {
			return nil, fmt.Errorf("decrypting: %w", err)
		}
	}
	if err := d.checkMAC(meta); err != nil {
		return nil, err
	}
	return writeDocuments(docs)
}

// checkMAC compares the MAC stored in the file with the one computed over
// its values: a value changed, added or removed after encryption fails it.
func (d *decrypter) checkMAC(meta *metadata) error {
	additional, err := meta.macData()
	if err != nil {
		return fmt.Errorf("reading its SOPS metadata: %w", err)
	}
	stored, err := decryptValue(meta.MAC, d.dataKey, additional)
	if computed := fmt.Sprintf("%X", d.mac.Sum(nil)); err != nil || stored != computed {
		return errors.New("the file's MAC does not match its values: it was changed after it was encrypted")
	}
	return nil
}

// readDocuments reads the documents of data in order, and the SOPS
// metadata of the first one; the sops entry is taken out of each.
func readDocuments(data []byte) ([]branch, *metadata, error) {
	// A key given twice is an error, as for SOPS.
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(map[string]any{}); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	var (
		docs []branch
		meta *metadata
	)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, err
		}
		root, sops, err := documentRoot(&doc)
		if err != nil {
			return nil, nil, err
		}
		if sops != nil && len(docs) == 0 {
			meta = &metadata{}
			if err := sops.Decode(meta); err != nil {
				return nil, nil, fmt.Errorf("its sops entry: %w", err)
			}
		}
		b, err := toBranch(root)
		if err != nil {
			return nil, nil, err
		}
		docs = append(docs, b)
	}
	if meta == nil {
		return nil, nil, errors.New("no sops entry in its first document")
	}
	return docs, meta, nil
}

// documentRoot returns the mapping of a document without its sops entry,
// and that entry's value.
func documentRoot(doc *yaml.Node) (root, sops *yaml.Node, err error) {
	if len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode}, nil, nil
	}
	root = doc.Content[0]
	for root.Kind == yaml.AliasNode {
		root = root.Alias
	}
	switch {
	case root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null":
		return &yaml.Node{Kind: yaml.MappingNode}, nil, nil
	case root.Kind != yaml.MappingNode:
		return nil, nil, errors.New("a document that is not a mapping")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == metadataKey {
			sops = root.Content[i+1]
			root.Content = append(root.Content[:i:i], root.Content[i+2:]...)
			i -= 2
		}
	}
	return root, sops, nil
}

// toBranch turns a mapping node into a branch, in order.
func toBranch(node *yaml.Node) (branch, error) {
	out := make(branch, 0, len(node.Content)/2)
	for i := 0; i+1 < len(node.Content); i += 2 {
		var key any
		if err := node.Content[i].Decode(&key); err != nil {
			return nil, err
		}
		name, ok := key.(string)
		if !ok {
			return nil, fmt.Errorf("the key %v is a %T: only string keys are supported", key, key)
		}
		value, err := toValue(node.Content[i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, item{key: name, value: value})
	}
	return out, nil
}

// toValue turns a node into a branch, a list or a scalar's Go value, as
// SOPS reads it; an alias is read as the node it names.
func toValue(node *yaml.Node) (any, error) {
	switch node.Kind {
	case yaml.MappingNode:
		return toBranch(node)
	case yaml.SequenceNode:
		list := make([]any, 0, len(node.Content))
		for _, n := range node.Content {
			v, err := toValue(n)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.AliasNode:
		return toValue(node.Alias)
	}
	var v any
	if err := node.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// writeDocuments writes the decrypted documents as YAML.
func writeDocuments(docs []branch) ([]byte, error) {
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	for _, doc := range docs {
		node, err := toNode(doc)
		if err != nil {
			return nil, fmt.Errorf("writing the decrypted document: %w", err)
		}
		if err := enc.Encode(node); err != nil {
			return nil, fmt.Errorf("writing the decrypted document: %w", err)
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// toNode turns a decrypted value back into a node, in order.
func toNode(v any) (*yaml.Node, error) {
	switch v := v.(type) {
	case branch:
		node := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, it := range v {
			value, err := toNode(it.value)
			if err != nil {
				return nil, err
			}
			node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it.key}, value)
		}
		return node, nil
	case []any:
		node := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range v {
			value, err := toNode(e)
			if err != nil {
				return nil, err
			}
			node.Content = append(node.Content, value)
		}
		return node, nil
	case []byte:
		return toNode(string(v))
	}
	node := &yaml.Node{}
	if err := node.Encode(v); err != nil {
		return nil, err
	}
	return node, nil
}

// hasMarker tells whether data looks like a SOPS document in YAML or JSON.
func hasMarker(data []byte) bool {
	return bytes.Contains(data, []byte("sops")) &&
		(bytes.Contains(data, []byte("mac: ENC[")) || bytes.Contains(data, []byte(`"mac": "ENC[`)) || bytes.Contains(data, []byte(`"mac":"ENC[`)))
}
