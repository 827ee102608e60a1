package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qeval/qeval/server"
)

// checkStream checks that a stream holds every case once, ids 1..n in order, then a
// summary as the last event.
func checkStream(evs []event, cases int) error {
	next := 1
	for i, e := range evs {
		switch e.Name {
		case "case":
			if e.ID != strconv.Itoa(next) {
				return fmt.Errorf("event %d: case with id %q, want %d", i, e.ID, next)
			}
			var ce server.CaseEvent
			if err := json.Unmarshal(e.Data, &ce); err != nil || ce.Index != next-1 || len(ce.Case) == 0 {
				return fmt.Errorf("event %d: case data %s (%v)", i, e.Data, err)
			}
			next++
		case "progress":
			var p server.Progress
			if err := json.Unmarshal(e.Data, &p); err != nil || p.Done != next-1 {
				return fmt.Errorf("event %d: progress %s after %d cases", i, e.Data, next-1)
			}
		case "summary":
			if i != len(evs)-1 {
				return fmt.Errorf("summary is event %d of %d, want the last", i, len(evs))
			}
		}
	}
	if next-1 != cases {
		return fmt.Errorf("%d case events, want %d", next-1, cases)
	}
	if len(evs) == 0 || evs[len(evs)-1].Name != "summary" {
		return fmt.Errorf("no summary at the end")
	}
	return nil
}

// Guards the requirement: 200 concurrent event-stream clients on one run all
// receive every event.
func TestEvents_200Clients(t *testing.T) {
	const clients, cases = 200, 6
	suitePath, gate := gatedSuite(t, cases)
	ts := MustServer(t, func(c *server.Config) { c.Suites = map[string]string{"gated": suitePath} })
	id := startRun(t, ts, []byte(`{"suite": "gated"}`), "application/json")

	ctx, cancel := waitContext(t)
	defer cancel()
	tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var connected, wg sync.WaitGroup
	connected.Add(clients)
	errs := make([]error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			once := sync.OnceFunc(connected.Done)
			defer once()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/runs/"+id+"/events", nil)
			resp, err := client.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			// the first event (progress) says the subscription is in place
			if _, err := br.ReadString('\n'); err != nil {
				errs[i] = err
				return
			}
			once()
			rest, err := parseEvents(br)
			if err != nil {
				errs[i] = err
				return
			}
			errs[i] = checkStream(rest, cases)
		}()
	}
	connected.Wait()
	openGate(t, gate) // every client is subscribed before the first case finishes
	wg.Wait()
	failed := 0
	for i, err := range errs {
		if err != nil {
			failed++
			if failed <= 3 {
				t.Errorf("client %d: %v", i, err)
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d clients missed events", failed, clients)
	}
}

// A client that stops reading must not hold back the run or the other clients, and
// still gets everything, summary included, once it reads again.
func TestEvents_SlowClient(t *testing.T) {
	const cases = 40
	suitePath, gate := gatedSuite(t, cases)
	ts := MustServer(t, func(c *server.Config) { c.Suites = map[string]string{"gated": suitePath} })
	id := startRun(t, ts, []byte(`{"suite": "gated"}`), "application/json")

	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(16 << 10)
	fmt.Fprintf(conn, "GET /api/runs/%s/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", id)

	openGate(t, gate)
	fast := readEvents(t, ts.URL+"/api/runs/"+id+"/events")
	if err := checkStream(fast, cases); err != nil {
		t.Fatalf("fast client: %v", err)
	}
	if v := waitRun(t, ts, id); v.Status != server.StatusFinished {
		t.Fatalf("run %s while a client was not reading, want finished", v.Status)
	}

	if dl, ok := t.Deadline(); ok {
		conn.SetReadDeadline(dl.Add(-10 * time.Second))
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := parseEvents(resp.Body)
	if err != nil {
		t.Fatalf("slow client: %v after %d events", err, len(slow))
	}
	if err := checkStream(slow, cases); err != nil {
		t.Fatalf("slow client: %v", err)
	}
}

func TestEvents_Replay(t *testing.T) {
	ts := MustServer(t, nil)
	id := startRun(t, ts, readFile(t, liveSuite), "application/yaml")
	waitRun(t, ts, id)

	evs := readEvents(t, ts.URL+"/api/runs/"+id+"/events")
	if err := checkStream(evs, 8); err != nil {
		t.Fatalf("replay of an ended run: %v", err)
	}
	var end server.RunView
	if err := json.Unmarshal(evs[len(evs)-1].Data, &end); err != nil || end.Status != server.StatusFinished ||
		end.Summary == nil || end.Passed != 5 || len(end.Charts) == 0 || end.Cases != nil {
		t.Fatalf("summary event %+v (%v), want the finished run with its summary and charts, no cases", end, err)
	}

	// reconnecting with Last-Event-ID resumes after that case
	evs = readEvents(t, ts.URL+"/api/runs/"+id+"/events", "Last-Event-ID: 5")
	if n := countEvents(evs, "case"); n != 3 || evs[0].ID != "6" {
		t.Fatalf("after Last-Event-ID 5: %d cases starting at %q, want 3 from 6", n, evs[0].ID)
	}
}

func TestEvents_LateSubscriber(t *testing.T) {
	suitePath, gate := gatedSuite(t, 5)
	ts := MustServer(t, func(c *server.Config) { c.Suites = map[string]string{"gated": suitePath} })
	id := startRun(t, ts, []byte(`{"suite": "gated"}`), "application/json")
	openGate(t, gate)
	// whenever it joins (during the run or after), a subscriber gets everything
	evs := readEvents(t, ts.URL+"/api/runs/"+id+"/events")
	if err := checkStream(evs, 5); err != nil {
		t.Fatal(err)
	}
	evs = readEvents(t, ts.URL+"/api/runs/"+id+"/events")
	if err := checkStream(evs, 5); err != nil {
		t.Fatalf("after the end: %v", err)
	}
}

// A stream lasts longer than the HTTP server's read timeout: the server's timeouts
// are for requests, not for a run a client is following. The connections' read
// deadlines pass when the test says so (expiringListener), not by the clock: once the
// stream is open, every deadline set so far passes, and the stream must go on.
func TestEvents_OutlivesReadTimeout(t *testing.T) {
	suitePath, gate := gatedSuite(t, 2)
	s, err := server.New(server.Config{DataDir: t.TempDir(), Suites: map[string]string{"gated": suitePath}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hs := s.HTTPServer("127.0.0.1:0")
	hs.ReadTimeout = 100 * time.Millisecond
	ln := &expiringListener{Listener: mustListen(t)}
	go hs.Serve(ln)
	defer hs.Close()
	ts := &testServer{Server: s, URL: "http://" + ln.Addr().String()}
	id := startRun(t, ts, []byte(`{"suite": "gated"}`), "application/json")

	ctx, cancel := waitContext(t)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/runs/"+id+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	// the first event (progress, no case yet: the gate is shut) says the stream is open
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("first event: %v", err)
		}
		if line == "\n" {
			break
		}
	}
	ln.expire()
	openGate(t, gate)
	rest, err := parseEvents(br)
	if err != nil {
		t.Fatalf("stream: %v after %d events", err, len(rest))
	}
	if err := checkStream(rest, 2); err != nil {
		t.Fatal(err)
	}
}

// expiringListener hands out connections whose read deadlines pass when expire is
// called, whatever the clock says: a deadline in the future is recorded, not set; one
// in the past (net/http's way to stop a pending read) or none is passed on.
type expiringListener struct {
	net.Listener
	mu    sync.Mutex
	conns []*expiringConn
}

func (l *expiringListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	ec := &expiringConn{Conn: c}
	l.mu.Lock()
	l.conns = append(l.conns, ec)
	l.mu.Unlock()
	return ec, nil
}

// expire makes every read deadline set so far pass now.
func (l *expiringListener) expire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.expire()
	}
}

type expiringConn struct {
	net.Conn
	mu    sync.Mutex
	armed bool // a read deadline in the future is set
}

func (c *expiringConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !t.IsZero() && t.After(time.Now()) {
		c.armed = true
		return nil
	}
	c.armed = false
	return c.Conn.SetReadDeadline(t)
}

func (c *expiringConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(t)
}

func (c *expiringConn) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.armed {
		c.Conn.SetReadDeadline(time.Unix(1, 0))
	}
}
