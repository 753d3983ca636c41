package postgres

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/wavekit-dev/wavekit/pkg/external"
)

// connectTimeout bounds a connection attempt when the context has no
// deadline of its own.
const connectTimeout = 10 * time.Second

// closeTimeout bounds saying goodbye to the server.
const closeTimeout = 5 * time.Second

// server is where and as whom a request reaches PostgreSQL, read from the
// request's credentials.
type server struct {
	host, port, user, password, dbname, sslmode string
}

// serverOf reads the credentials' keys host, port (default 5432), user,
// password, dbname (default postgres) and sslmode (default disable).
func serverOf(req external.Request) (server, error) {
	c := req.Credentials
	s := server{
		host: string(c["host"]), port: string(c["port"]), user: string(c["user"]),
		password: string(c["password"]), dbname: string(c["dbname"]), sslmode: string(c["sslmode"]),
	}
	if s.host == "" || s.user == "" {
		return s, fmt.Errorf("the credentials need the keys host and user (and port, password, dbname, sslmode)")
	}
	if s.port == "" {
		s.port = "5432"
	}
	if s.dbname == "" {
		s.dbname = "postgres"
	}
	if s.sslmode == "" {
		s.sslmode = "disable"
	}
	return s, nil
}

// String says where the server is, without the password.
func (s server) String() string {
	return fmt.Sprintf("PostgreSQL at %s as %s", net.JoinHostPort(s.host, s.port), s.user)
}

// connect opens one connection to database (the credentials' dbname when
// empty); the caller closes it.
func (s server) connect(ctx context.Context, database string) (*pgx.Conn, error) {
	if database == "" {
		database = s.dbname
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(s.user, s.password),
		Host:     net.JoinHostPort(s.host, s.port),
		Path:     "/" + database,
		RawQuery: url.Values{"sslmode": {s.sslmode}}.Encode(),
	}
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s: the credentials do not parse: %w", s, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		cfg.ConnectTimeout = connectTimeout
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s, database %s: %w", s, database, err)
	}
	return conn, nil
}

// withConn runs f on a connection to database (the credentials' dbname
// when empty) and closes it.
func withConn(ctx context.Context, req external.Request, database string, f func(*pgx.Conn) error) error {
	s, err := serverOf(req)
	if err != nil {
		return err
	}
	conn, err := s.connect(ctx, database)
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	return f(conn)
}
