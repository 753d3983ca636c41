package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/external/postgres"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// webAppObjects renders a WebApp: in wave 0 a PostgreSQL role and
// database, whose Secret <name>-db holds the role's generated password
// and where to reach the database; in wave 1 a Deployment that reads that
// Secret. Deletion runs the other way: the Deployment (delete wave 0),
// then the database (1), then the role (2).
func webAppObjects(operatorName string) manifests.Generator {
	return manifests.GeneratorFunc(func(ctx context.Context, namespace, name string, _ manifests.Parameters) ([]client.Object, error) {
		info, ok := manifests.ComponentInfoFrom(ctx)
		if !ok {
			return nil, fmt.Errorf("no component in the render context")
		}
		app := info.Object.(*WebApp)
		if app.Spec.AdminSecretRef == "" {
			return nil, fmt.Errorf("WebApp %s/%s: spec.adminSecretRef names no Secret", namespace, name)
		}
		return append(databaseObjects(operatorName, name, app.Spec), deployment(operatorName, namespace, name, app.Spec)), nil
	})
}

// databaseObjects returns the role and the database of the WebApp name,
// both called after it in PostgreSQL (name with '_' for '-').
func databaseObjects(operatorName, name string, spec WebAppSpec) []client.Object {
	pgName := strings.ReplaceAll(name, "-", "_")
	host, port := spec.DatabaseHost, spec.DatabasePort
	if host == "" {
		host = "postgres.default.svc"
	}
	if port == 0 {
		port = 5432
	}
	role := external.New(external.Object{
		Kind: postgres.KindRole, Name: name,
		Annotations:     orders(operatorName, "0", "2"),
		Spec:            map[string]any{"name": pgName, "login": true},
		CredentialsFrom: spec.AdminSecretRef,
		Secret: &external.SecretSpec{
			Name:     secretName(name),
			Generate: []string{"password"},
			Data:     map[string]string{"username": pgName, "host": host, "port": strconv.Itoa(port), "dbname": pgName},
		},
	})
	database := external.New(external.Object{
		Kind: postgres.KindDatabase, Name: name,
		Annotations:     orders(operatorName, "0", "1"),
		Spec:            map[string]any{"name": pgName, "owner": pgName},
		CredentialsFrom: spec.AdminSecretRef,
	})
	return []client.Object{role, database}
}

// deployment returns the WebApp's Deployment in wave 1, its environment
// read from the Secret of the database.
func deployment(operatorName, namespace, name string, spec WebAppSpec) client.Object {
	image := spec.Image
	if image == "" {
		image = "registry.example.com/webapp:1.0"
	}
	labels := map[string]string{"app.kubernetes.io/name": "webapp", "app.kubernetes.io/instance": name}
	var env []corev1.EnvVar
	for _, key := range []string{"username", "password", "host", "port", "dbname"} {
		env = append(env, corev1.EnvVar{
			Name: "DB_" + strings.ToUpper(key),
			ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: secretName(name)}, Key: key,
			}},
		})
	}
	return &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace, Name: name, Labels: labels,
			Annotations: orders(operatorName, "1", "0"),
		},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image, Env: env}}},
			},
		},
	}
}

// orders returns the annotations of an apply and a delete wave.
func orders(operatorName, apply, del string) map[string]string {
	return map[string]string{
		manifests.Key(operatorName, manifests.AnnotationApplyOrder):  apply,
		manifests.Key(operatorName, manifests.AnnotationDeleteOrder): del,
	}
}

// secretName is the Secret of the WebApp name's database.
func secretName(name string) string { return name + "-db" }
