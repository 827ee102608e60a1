// Package kusto is the Azure Data Explorer (Kusto) executor: it runs KQL queries on a
// cluster through Microsoft's official Go SDK (github.com/Azure/azure-kusto-go,
// package azkustodata) and returns their primary result as a qeval.ResultSet.
//
// Column types are Kusto's type names (string, long, int, real, bool, datetime,
// timespan, dynamic, guid, decimal), as the local KQL engine (package kqlexec) reports
// them, and values are converted the same way: datetimes are times, timespans text as
// Kusto prints them, dynamic values their JSON text, guids and decimals text. So results
// from the cluster and from the local engine compare directly.
//
// A query the service rejects (syntax or semantic error, an error frame in the result
// stream) is a *qeval.Error with CodeQuery; the client-side deadline gives CodeTimeout;
// more rows than the cap give CodeTooLarge; a cluster that cannot be reached or a
// failed sign-in gives CodeUnavailable.
//
// Authentication uses what the SDK offers: the default Azure credential chain (env,
// workload identity, managed identity, Azure CLI), the Azure CLI alone, a managed
// identity, an application key, or a ready user token. AuthNone is for plain-HTTP
// endpoints such as a local Kusto emulator or a test server.
package kusto
