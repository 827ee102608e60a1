package kqlexec

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"
	"strings"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/net/idna"
)

// unsupportedError is a run-time refusal: the engine cannot compute this value
// (Executor.classify turns it into CodeUnsupported).
func unsupportedError(what string) error { return errors.New("unsupported: " + what) }

// tooLargeError refuses an input a function would take too long on (the query fails
// as too_large rather than run past its deadline inside one call).
func tooLargeError(what string) error { return errors.New("too large: " + what) }

// unit factors to a base unit, per kind.
// maxRangeRows is the most rows the range operator makes; rangeTooLong is the internal
// function that fails a query whose range would make more.
const (
	maxRangeRows = 10_000_000
	rangeTooLong = "_range_too_long"
)

// miscFuncs defines this file's functions (see library in funcs.go).
func miscFuncs(def func(string, *fnDef)) {
	for _, k := range []string{"angle", "energy", "force", "length", "mass", "speed", "temperature", "volume"} {
		def("convert_"+k, convertUnit(k))
	}
	def(rangeTooLong, fixed(TBool, func([]any) any {
		return fmt.Errorf("range: more than %d rows; narrow the range or raise the step", maxRangeRows)
	}))
	def("assert", fixed(TBool, func(a []any) any {
		if b, _ := a[0].(bool); !b {
			return errors.New("assertion failed: " + str(a, 1))
		}
		return true
	}, TBool, TString))
	def("new_guid", fixed(TGuid, func(a []any) any {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		// a version 4 GUID: guidFromBytes reads bytes 6-7 little-endian (.NET's
		// layout), so the version nibble that prints first is byte 7's high one
		b[7] = b[7]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		return guidFromBytes(b[:])
	}))
	volatile["new_guid"] = true
	def("zlib_decompress_from_base64_string", fixed(TString, func(a []any) any {
		b, err := base64.StdEncoding.DecodeString(str(a, 0))
		if err != nil {
			return nil
		}
		r, err := zlib.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil
		}
		out, err := io.ReadAll(io.LimitReader(r, 64<<20))
		if err != nil {
			return nil
		}
		return string(out)
	}, TString))
	def("gzip_decompress_from_base64_string", fixed(TString, func(a []any) any {
		b, err := base64.StdEncoding.DecodeString(str(a, 0))
		if err != nil {
			return nil
		}
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil
		}
		out, err := io.ReadAll(io.LimitReader(r, 64<<20))
		if err != nil {
			return nil
		}
		return string(out)
	}, TString))
	const storedPartly = "the bytes are Kusto's for texts up to 65,535 bytes; how Kusto cuts a longer one into stored blocks is not known (any reader decompresses it)"
	gz := fixed(TString, func(a []any) any { return base64.StdEncoding.EncodeToString(gzipStored([]byte(str(a, 0)))) }, TString)
	gz.partly = storedPartly
	def("gzip_compress_to_base64_string", gz)
	zl := fixed(TString, func(a []any) any { return base64.StdEncoding.EncodeToString(zlibStored([]byte(str(a, 0)))) }, TString)
	zl.partly = storedPartly
	def("zlib_compress_to_base64_string", zl)
	def("punycode_domain_from_string", fixed(TString, func(a []any) any {
		s, err := idna.Punycode.ToUnicode(str(a, 0))
		if err != nil {
			return ""
		}
		return s
	}, TString))
	def("punycode_domain_to_string", fixed(TString, func(a []any) any {
		labels := strings.FieldsFunc(str(a, 0), func(r rune) bool { return strings.ContainsRune(".。｡．", r) })
		for i, l := range labels {
			s, err := idna.Punycode.ToASCII(l)
			if err != nil {
				return ""
			}
			labels[i] = s
		}
		return strings.Join(labels, ".")
	}, TString))
	def("hash", &fnDef{min: 1, max: 2, args: []Type{"", TLong}, ret: TLong, fn: func(a []any) any {
		if a[0] == nil {
			return nil
		}
		var in []byte
		switch x := a[0].(type) {
		case string:
			in = []byte(x)
		case Datetime:
			// .NET ticks since 0001-01-01, little-endian
			in = binary.LittleEndian.AppendUint64(nil, uint64(int64(x)+unixToYear1))
		default:
			return unsupportedError("hash() of a " + getType(a[0]))
		}
		h := int64(xxhash.Sum64(in))
		if len(a) == 2 && a[1] != nil {
			m, _ := toLong(a[1])
			if m <= 0 {
				return nil
			}
			h = ((h % m) + m) % m
		}
		return h
	}})
	unsupportedFuncs["hash_combine"] = true
	funcAliases["hash_xxhash64"] = "hash"
	def("merge_tdigest", &fnDef{min: 1, max: -1, rest: TDynamic, ret: TDynamic, fn: func(a []any) any {
		out := []any{}
		for _, x := range a {
			xs, ok := arr(x)
			if !ok {
				return nil
			}
			out = append(out, xs...)
		}
		return Dyn{out}
	}})
	funcAliases["tdigest_merge"] = "merge_tdigest"
	def("percentile_tdigest", &fnDef{min: 2, max: 3, args: []Type{TDynamic, TReal, TString}, retf: func(a []expr) Type {
		if len(a) == 3 && a[2].isLit {
			if t, ok := ParseType(toString(a[2].lit)); ok {
				return t
			}
		}
		return TDynamic
	}, fn: func(a []any) any {
		xs, ok := arr(a[0])
		p, ok2 := toReal(a[1])
		if !ok || !ok2 || len(xs) == 0 {
			return nil
		}
		vals, raws, _ := digestValues(Dyn{xs})
		if len(vals) == 0 {
			return nil
		}
		return Dyn{raws[rankIndex(len(vals), p)]}
	}})
	def("rank_tdigest", fixed(TReal, func(a []any) any {
		xs, ok := arr(a[0])
		v, ok2 := toReal(a[1])
		if !ok || !ok2 {
			return nil
		}
		var n float64
		for _, x := range xs {
			if f, ok := digestKey(x); ok && f <= v {
				n++
			}
		}
		return n
	}, TDynamic, TReal))
	for _, n := range []string{"cursor_current",
		"extent_id", "extent_tags",
		"cursor_after", "cursor_before_or_at", "current_cluster_endpoint", "current_principal", "current_principal_details",
		"current_principal_is_member_of", "geo_info_from_ip_address"} {
		unsupportedFuncs[n] = true
	}
}

// Kusto's gzip_compress_to_base64_string and zlib_compress_to_base64_string store the
// data without compressing it: the reference's output for "1234567890qwertyuiop" is a
// zlib header of the fastest level (78 01) and one final stored deflate block, which no
// compressing level gives for that input (a fixed-Huffman block is 3 bytes shorter).
// compress/flate's NoCompression writes the same block without its final flag and then
// an empty final block, so the stored blocks (RFC 1951 §3.2.4) are framed here, in the
// gzip (RFC 1952: no name, no time, unknown OS) and zlib (RFC 1950) containers.

// deflateStored is data as stored deflate blocks of at most 65,535 bytes, the last one
// final.
func deflateStored(data []byte) []byte {
	out := make([]byte, 0, len(data)+5*(len(data)/0xffff+1))
	for {
		n := min(len(data), 0xffff)
		final := byte(0)
		if n == len(data) {
			final = 1
		}
		out = append(out, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		out = append(out, data[:n]...)
		data = data[n:]
		if final == 1 {
			return out
		}
	}
}

func gzipStored(data []byte) []byte {
	out := append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, deflateStored(data)...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(out, uint32(len(data)))
}

func zlibStored(data []byte) []byte {
	out := append([]byte{0x78, 0x01}, deflateStored(data)...)
	return binary.BigEndian.AppendUint32(out, adler32.Checksum(data))
}
