package kusto

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-kusto-go/azkustodata"
	kerrors "github.com/Azure/azure-kusto-go/azkustodata/errors"
	"github.com/Azure/azure-kusto-go/azkustodata/kql"
	"github.com/Azure/azure-kusto-go/azkustodata/query"
	"github.com/Azure/azure-kusto-go/azkustodata/types"

	"github.com/qeval/qeval"
)

var _ qeval.Executor = (*Executor)(nil)

// Auth names how the executor signs in to the cluster.
type Auth string

// The ways to sign in.
const (
	AuthDefault         Auth = "default"          // DefaultAzureCredential: env, workload identity, managed identity, Azure CLI
	AuthAzCLI           Auth = "azcli"            // the signed-in Azure CLI user
	AuthManagedIdentity Auth = "managed-identity" // system-assigned, or user-assigned when ClientID is set
	AuthAppKey          Auth = "app-key"          // an Azure AD application: ClientID, ClientSecret, TenantID
	AuthToken           Auth = "token"            // a ready Azure AD access token in Token
	AuthNone            Auth = "none"             // no sign-in: plain-HTTP endpoints (a local emulator, tests)
)

// Config says which cluster and database to query and how to sign in.
type Config struct {
	// ClusterURL is the cluster's query endpoint, e.g. https://help.kusto.windows.net.
	ClusterURL string
	// Database is the database queries run in.
	Database string
	// Auth is the sign-in method (AuthDefault when empty).
	Auth Auth
	// ClientID, ClientSecret and TenantID are the application's (AuthAppKey), or
	// ClientID alone a user-assigned managed identity's (AuthManagedIdentity).
	ClientID     string
	ClientSecret string
	TenantID     string
	// Token is an Azure AD access token for AuthToken. It is never printed.
	Token string
	// Limits caps each query: Timeout is the client-side deadline (also sent to the
	// service as its server timeout), MaxRows the row cap.
	Limits qeval.Limits
	// HTTPClient replaces the SDK's HTTP client (tests point it anywhere).
	HTTPClient *http.Client
}

// Executor runs KQL queries on one Azure Data Explorer database. It is safe for
// concurrent use.
type Executor struct {
	client *azkustodata.Client
	db     string
	limits qeval.Limits
}

// New connects an executor. It signs in lazily: a bad credential shows on the first
// query.
func New(cfg Config) (*Executor, error) {
	if strings.TrimSpace(cfg.ClusterURL) == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open kusto", Message: "no cluster URL",
			Hint: "give the cluster's query endpoint, e.g. https://help.kusto.windows.net"}
	}
	if strings.TrimSpace(cfg.Database) == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open kusto " + cfg.ClusterURL, Message: "no database"}
	}
	kcsb := azkustodata.NewConnectionStringBuilder(cfg.ClusterURL)
	switch cfg.Auth {
	case "", AuthDefault:
		kcsb = kcsb.WithDefaultAzureCredential()
	case AuthAzCLI:
		kcsb = kcsb.WithAzCli()
	case AuthManagedIdentity:
		if cfg.ClientID != "" {
			kcsb = kcsb.WithUserAssignedIdentityClientId(cfg.ClientID)
		} else {
			kcsb = kcsb.WithSystemManagedIdentity()
		}
	case AuthAppKey:
		if cfg.ClientID == "" || cfg.ClientSecret == "" || cfg.TenantID == "" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open kusto " + cfg.ClusterURL,
				Message: "app-key sign-in needs a client ID, a client secret and a tenant ID"}
		}
		kcsb = kcsb.WithAadAppKey(cfg.ClientID, cfg.ClientSecret, cfg.TenantID)
	case AuthToken:
		if cfg.Token == "" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open kusto " + cfg.ClusterURL, Message: "token sign-in needs a token"}
		}
		kcsb = kcsb.WithAadUserToken(cfg.Token)
	case AuthNone:
	default:
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open kusto " + cfg.ClusterURL,
			Message: fmt.Sprintf("unknown sign-in method %q (known: default, azcli, managed-identity, app-key, token, none)", cfg.Auth)}
	}
	var opts []azkustodata.Option
	if cfg.HTTPClient != nil {
		opts = append(opts, azkustodata.WithHttpClient(cfg.HTTPClient))
	}
	client, err := azkustodata.New(kcsb, opts...)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open kusto " + cfg.ClusterURL, Message: cleanSDKMessage(err), Err: err}
	}
	return &Executor{client: client, db: cfg.Database, limits: cfg.Limits.WithDefaults()}, nil
}

// Close releases the client.
func (e *Executor) Close() error { return e.client.Close() }

// Query runs one KQL query and returns its primary result; see qeval.Executor.
func (e *Executor) Query(ctx context.Context, q string) (*qeval.ResultSet, error) {
	if strings.TrimSpace(q) == "" {
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "empty query"}
	}
	ctx, cancel := context.WithTimeout(ctx, e.limits.Timeout)
	defer cancel()
	stmt := kql.New("").AddUnsafe(q)
	ds, err := e.client.IterativeQuery(ctx, e.db, stmt,
		azkustodata.ServerTimeout(e.limits.Timeout),
		azkustodata.CustomQueryOption("truncationmaxrecords", e.limits.MaxRows+1))
	if err != nil {
		return nil, classify(ctx, err)
	}
	defer ds.Close()
	var rs *qeval.ResultSet
	for tr := range ds.Tables() {
		if err := tr.Err(); err != nil {
			return nil, classify(ctx, err)
		}
		t := tr.Table()
		if !t.IsPrimaryResult() || rs != nil {
			// drain secondary tables so the stream's errors still surface
			for r := range t.Rows() {
				if err := r.Err(); err != nil {
					return nil, classify(ctx, err)
				}
			}
			continue
		}
		rs, err = e.readTable(ctx, t)
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, classify(ctx, err)
	}
	if rs == nil {
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "the query returned no primary result"}
	}
	return rs, nil
}

func (e *Executor) readTable(ctx context.Context, t query.IterativeTable) (*qeval.ResultSet, error) {
	cols := t.Columns()
	rs := &qeval.ResultSet{Columns: make([]qeval.Column, len(cols))}
	for i, c := range cols {
		rs.Columns[i] = qeval.Column{Name: c.Name(), Type: string(c.Type())}
	}
	var size int64
	for r := range t.Rows() {
		if err := r.Err(); err != nil {
			return nil, classify(ctx, err)
		}
		if len(rs.Rows) >= e.limits.MaxRows {
			return nil, &qeval.Error{Code: qeval.CodeTooLarge, Message: fmt.Sprintf("result too large: more than %d rows (the row cap)", e.limits.MaxRows)}
		}
		row, err := convertRow(r.Row(), cols)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInternal, Message: "read kusto row: " + err.Error(), Err: err}
		}
		size += qeval.RowOverhead
		for _, v := range row {
			size += qeval.ValueOverhead + int64(len(v.Str))
		}
		if size > e.limits.MaxBytes {
			return nil, &qeval.Error{Code: qeval.CodeTooLarge, Message: fmt.Sprintf("result too large: more than %d bytes (the memory cap)", e.limits.MaxBytes)}
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, nil
}

// convertRow converts one Kusto row to qeval values by column type.
func convertRow(r query.Row, cols []query.Column) ([]qeval.Value, error) {
	out := make([]qeval.Value, len(cols))
	for i, c := range cols {
		var err error
		switch c.Type() {
		case types.Bool:
			var v *bool
			if v, err = r.BoolByIndex(i); err == nil && v != nil {
				out[i] = qeval.Bool(*v)
			}
		case types.Int:
			var v *int32
			if v, err = r.IntByIndex(i); err == nil && v != nil {
				out[i] = qeval.Int(int64(*v))
			}
		case types.Long:
			var v *int64
			if v, err = r.LongByIndex(i); err == nil && v != nil {
				out[i] = qeval.Int(*v)
			}
		case types.Real:
			var v *float64
			if v, err = r.RealByIndex(i); err == nil && v != nil {
				out[i] = qeval.Float(*v)
			}
		case types.Decimal:
			var v interface{ String() string }
			d, derr := r.DecimalByIndex(i)
			err = derr
			if err == nil && d != nil {
				v = d
				out[i] = qeval.Text(v.String())
			}
		case types.String:
			var v string
			if v, err = r.StringByIndex(i); err == nil {
				out[i] = qeval.Text(v)
			}
		case types.DateTime:
			var v *time.Time
			if v, err = r.DateTimeByIndex(i); err == nil && v != nil {
				out[i] = qeval.Time(*v)
			}
		case types.Timespan:
			var v *time.Duration
			if v, err = r.TimespanByIndex(i); err == nil && v != nil {
				out[i] = qeval.Text(formatTimespan(int64(*v) / 100))
			}
		case types.GUID:
			g, gerr := r.GuidByIndex(i)
			err = gerr
			if err == nil && g != nil {
				out[i] = qeval.Text(g.String())
			}
		case types.Dynamic:
			var v []byte
			if v, err = r.DynamicByIndex(i); err == nil && v != nil && string(v) != "null" {
				out[i] = qeval.Text(string(v))
			}
		default:
			out[i] = qeval.Text(fmt.Sprint(r.Values()[i]))
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name(), err)
		}
	}
	return out, nil
}

// formatTimespan prints a count of 100 ns ticks as Kusto prints a timespan:
// [-][d.]hh:mm:ss[.fffffff].
func formatTimespan(t int64) string {
	var b strings.Builder
	if t < 0 {
		b.WriteByte('-')
		t = -t
	}
	const sec, day = 10_000_000, 864_000_000_000
	if d := t / day; d > 0 {
		b.WriteString(strconv.FormatInt(d, 10))
		b.WriteByte('.')
	}
	t %= day
	fmt.Fprintf(&b, "%02d:%02d:%02d", t/(3600*sec), t/(60*sec)%60, t/sec%60)
	if f := t % sec; f > 0 {
		fmt.Fprintf(&b, ".%07d", f)
	}
	return b.String()
}

// classify turns an SDK error into a typed one.
func classify(ctx context.Context, err error) error {
	switch ctx.Err() {
	case context.DeadlineExceeded:
		return &qeval.Error{Code: qeval.CodeTimeout, Message: "query timed out", Err: err}
	case context.Canceled:
		return &qeval.Error{Code: qeval.CodeCanceled, Message: "query canceled", Err: err}
	}
	var he *kerrors.HttpError
	if errors.As(err, &he) {
		msg := restMessage(&he.KustoError)
		switch {
		case he.StatusCode == http.StatusUnauthorized || he.StatusCode == http.StatusForbidden:
			return &qeval.Error{Code: qeval.CodeUnavailable, Message: fmt.Sprintf("kusto: %d: %s", he.StatusCode, msg), Err: err,
				Hint: "check the sign-in method and that the identity may read the database"}
		case he.StatusCode == http.StatusTooManyRequests || he.StatusCode >= 500:
			return &qeval.Error{Code: qeval.CodeUnavailable, Message: fmt.Sprintf("kusto: %d: %s", he.StatusCode, msg), Err: err}
		}
		return &qeval.Error{Code: qeval.CodeQuery, Message: msg, Err: err}
	}
	var ke *kerrors.Error
	if errors.As(err, &ke) {
		switch ke.Kind {
		case kerrors.KHTTPError, kerrors.KIO:
			return &qeval.Error{Code: qeval.CodeUnavailable, Message: "kusto: " + cleanSDKMessage(err), Err: err}
		case kerrors.KTimeout:
			return &qeval.Error{Code: qeval.CodeTimeout, Message: "query timed out", Err: err}
		case kerrors.KLimitsExceeded:
			return &qeval.Error{Code: qeval.CodeTooLarge, Message: cleanSDKMessage(err), Err: err}
		case kerrors.KDBNotExist:
			return &qeval.Error{Code: qeval.CodeNotFound, Message: cleanSDKMessage(err), Err: err}
		}
	}
	return &qeval.Error{Code: qeval.CodeQuery, Message: cleanSDKMessage(err), Err: err}
}

// restMessage is the service's own message of an HTTP error: the error's @message
// (or message) field.
func restMessage(e *kerrors.Error) string {
	m := e.UnmarshalREST()
	if inner, ok := m["error"].(map[string]any); ok {
		for _, k := range []string{"@message", "message"} {
			if s, ok := inner[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return cleanSDKMessage(e)
}

// cleanSDKMessage keeps the useful part of an SDK error message.
func cleanSDKMessage(err error) string {
	s := err.Error()
	if i := strings.Index(s, "Err: "); i >= 0 {
		s = s[i+len("Err: "):]
	}
	return strings.TrimSpace(s)
}
