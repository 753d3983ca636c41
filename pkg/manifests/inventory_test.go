package manifests

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

// TestInventoryItemEqualIsSemanticDeepEqual changes each field of an item in
// turn, so that a field added to InventoryItem but not to Equal fails here.
func TestInventoryItemEqualIsSemanticDeepEqual(t *testing.T) {
	order := int16(2)
	base := InventoryItem{Version: "v1", Kind: "ConfigMap", Name: "a", Phase: PhaseReady, PurgeOrder: &order}
	fields := reflect.TypeFor[InventoryItem]().NumField()
	for i := range fields {
		changed := base
		v := reflect.ValueOf(&changed).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Int16, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Pointer:
			other := int16(3)
			v.Set(reflect.ValueOf(&other))
		case reflect.Slice:
			v.Set(reflect.ValueOf([]TypeInfo{{Group: "g", Kind: "K"}}))
		default:
			t.Fatalf("field %s of kind %s: teach this test and InventoryItem.Equal about it", reflect.TypeFor[InventoryItem]().Field(i).Name, v.Kind())
		}
		name := reflect.TypeFor[InventoryItem]().Field(i).Name
		if want, got := equality.Semantic.DeepEqual(base, changed), base.Equal(changed); got != want || got {
			t.Errorf("%s changed: Equal %v, Semantic.DeepEqual %v", name, got, want)
		}
	}
	same := base
	same.PurgeOrder = &order
	same.ManagedTypes = []TypeInfo{}
	if !base.Equal(same) || !equality.Semantic.DeepEqual(base, same) {
		t.Errorf("an equal purge order behind another pointer, or empty managed types, made items differ")
	}
	if !EqualInventories(nil, []InventoryItem{}) || EqualInventories([]InventoryItem{base}, []InventoryItem{base, base}) {
		t.Errorf("EqualInventories: nil and empty differ, or lengths do not count")
	}
}
