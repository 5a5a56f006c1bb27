package main

import "github.com/watchrv/kubectl-watchrv/pkg/diagnose"

// kubeconfigFixes is the fix of each kubeconfig field's value client-go
// refuses (diagnose.KubeconfigProblemOf reads which from its words): the
// field to change, in the kubeconfig and as a flag, and how. Never a
// kubeconfig value: client-go's words, before the fix, quote it already.
var kubeconfigFixes = map[diagnose.KubeconfigProblem]string{
	diagnose.ImpersonationWithoutUser:  "--as-group, --as-uid and --as-user-extra (as-groups, as-uid and as-user-extra in the kubeconfig's user) need a user to impersonate: give --as (or as in the kubeconfig's user), or drop them",
	diagnose.ExecAPIVersionUnknown:     "exec.apiVersion of the kubeconfig's user must be client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1, the versions this client reads: set it to the one the plugin speaks (kubectl config view)",
	diagnose.ExecAPIVersionMissing:     "set exec.apiVersion of the kubeconfig's user to client.authentication.k8s.io/v1 (or v1beta1), the one the plugin speaks (kubectl config view)",
	diagnose.ExecCommandMissing:        "set exec.command of the kubeconfig's user to the credential plugin to run (kubectl config view), or use --token",
	diagnose.ExecEnvWithoutName:        "give every entry of exec.env of the kubeconfig's user a name (kubectl config view)",
	diagnose.ExecInteractiveMode:       "set exec.interactiveMode of the kubeconfig's user to Never, IfAvailable or Always (kubectl config view)",
	diagnose.AuthProviderAndExec:       "keep one of auth-provider and exec in the kubeconfig's user (kubectl config view)",
	diagnose.AuthMethodsMany:           "keep one of them, in the kubeconfig's user (kubectl config view) and the flags (--token, --username and --password, --client-certificate)",
	diagnose.ClientKeyMissing:          "give client-key (or client-key-data) beside client-certificate in the kubeconfig's user, or --client-key with --client-certificate",
	diagnose.ClientCertificateTwice:    "keep one of client-certificate and client-certificate-data in the kubeconfig's user (kubectl config view)",
	diagnose.ClientKeyTwice:            "keep one of client-key and client-key-data in the kubeconfig's user (kubectl config view)",
	diagnose.CertificateAuthorityTwice: "keep one of certificate-authority and certificate-authority-data in the kubeconfig's cluster (kubectl config view)",
	diagnose.ProxyURLInvalid:           "fix proxy-url of the kubeconfig's cluster (kubectl config view) to an http, https or socks5 URL, or give --proxy-url",
	diagnose.TokenFileEmpty:            "the tokenFile holds no token (it is empty, or only whitespace): fix tokenFile in the kubeconfig's user (kubectl config view), or use --token",
}
