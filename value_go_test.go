package qeval

import (
	"fmt"
	"math"
	"math/big"
	"testing"
	"time"
)

func TestFromGo(t *testing.T) {
	huge, _ := new(big.Int).SetString("170141183460469231731687303715884105727", 10)
	for _, tc := range []struct {
		in   any
		want Value
	}{
		{nil, Null}, {true, Bool(true)}, {int8(-3), Int(-3)}, {uint16(7), Int(7)}, {uint64(math.MaxUint64), Float(math.MaxUint64)},
		{big.NewInt(42), Int(42)}, {huge, Float(1.7014118346046923e38)}, {float32(0.1), Float(0.1)}, {"x", Text("x")},
		{[]byte{0xff}, Bytes([]byte{0xff})}, {time.Date(2024, 2, 29, 1, 2, 3, 0, time.FixedZone("x", 3600)), Time(time.Date(2024, 2, 29, 0, 2, 3, 0, time.UTC))},
	} {
		if got, ok := FromGo(tc.in); !ok || got != tc.want {
			t.Errorf("FromGo(%#v) = %v, %v; want %v", tc.in, got, ok, tc.want)
		}
	}
	if _, ok := FromGo(struct{}{}); ok {
		t.Errorf("FromGo(struct{}{}) converted a kind it does not know")
	}
}

func TestColumnDef_GoValue(t *testing.T) {
	at := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		typ  string
		v    Value
		want any
	}{
		{TypeInteger, Int(7), int64(7)},
		{TypeDouble, Int(7), float64(7)},
		{TypeDecimal, Float(1.25), 1.25},
		{TypeText, Int(7), "7"},
		{TypeText, Float(0.1), "0.1"},
		{TypeText, Bytes([]byte("ab")), "ab"},
		{TypeBoolean, Int(1), true},
		{TypeBlob, Text("ab"), []byte("ab")},
		{TypeTimestamp, Time(at), at},
		{TypeText, Value{}, nil},
	} {
		got := ColumnDef{Type: tt.typ}.GoValue(tt.v)
		if fmt.Sprintf("%T %v", got, got) != fmt.Sprintf("%T %v", tt.want, tt.want) {
			t.Errorf("%s %v: got %T %v, want %T %v", tt.typ, tt.v, got, got, tt.want, tt.want)
		}
	}
}
