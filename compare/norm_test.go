package compare_test

import (
	"math"
	"testing"

	"github.com/qeval/qeval/compare"
)

// TestBag_ValueRules: the normalised value equality of bag (shared by ordered and
// subset): numbers by value across int, float and numeric text, floats to 12
// significant digits, other text exactly, NULL only to NULL.
func TestBag_ValueRules(t *testing.T) {
	cases := []struct {
		name       string
		gold, pred any
		want       bool
	}{
		{"int_equals_float", 1, 1.0, true},
		{"int_equals_text", 1, "1", true},
		{"float_equals_text", 1.0, "1", true},
		{"float_equals_text_float", 2.5, "2.50", true},
		{"text_number_trimmed", 7, " 7 ", true},
		{"text_exponent", 1000, "1e3", true},
		{"text_plus_sign", 5, "+5", true},
		{"text_leading_dot", 0.5, ".5", true},
		{"negative_text", -3, "-3", true},
		{"twelve_digits_equal", 2.3333333333333335, 2.333333333333333, true},
		{"twelve_digits_average", 1.0 / 3.0, 0.333333333333, true},
		{"thirteenth_digit_ignored", 1.0000000000001, 1.0, true},
		{"twelfth_digit_counts", 1.00000000001, 1.00000000002, false},
		{"small_float_rounded_not_zeroed", 1e-20, 0, false},
		{"different_numbers", 1, 2, false},
		{"int_text_different", 1, "2", false},
		{"non_numeric_text_exact", "Paris", "paris", false},
		{"non_numeric_text_spaces_kept", "a", "a ", false},
		{"numeric_looking_words", "1a", "1a", true},
		{"text_hex_not_number", 16, "0x10", false},
		{"null_equals_null", nil, nil, true},
		{"null_not_zero", nil, 0, false},
		{"null_not_empty_text", nil, "", false},
		{"null_not_text_null", nil, "NULL", false},
		{"bool_true_is_one", true, 1, true},
		{"bool_false_is_zero", false, "0", true},
		{"blob_not_text", []byte("ab"), "ab", false},
		{"blob_equal", []byte("ab"), []byte("ab"), true},
		{"inf_equals_inf", math.Inf(1), math.Inf(1), true},
		{"negative_zero", math.Copysign(0, -1), 0, true},
		{"big_int_equals_int", int64(1 << 62), int64(1 << 62), true},
		{"big_ints_differ", int64(123456789012345), int64(123456789012000), false},
		// A sum over a REAL column and the same sum over an INTEGER column: one number.
		{"large_whole_float_equals_int", int64(123456789012345), 123456789012345.0, true},
		{"large_whole_float_equals_text", "123456789012345", 123456789012345.0, true},
		// and a different int must not become equal to it through rounding
		{"large_float_not_other_int", int64(123456789012000), 123456789012345.0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, m := range []compare.Mode{compare.Bag, compare.Ordered, compare.Subset} {
				g, p := rows(row(c.gold)), rows(row(c.pred))
				if got := m.Equal(g, p, false); got != c.want {
					t.Errorf("%s.Equal([[%#v]], [[%#v]])=%v, want %v", m.ID(), c.gold, c.pred, got, c.want)
				}
				if got := m.Equal(p, g, false); got != c.want {
					t.Errorf("%s.Equal([[%#v]], [[%#v]])=%v, want %v (swapped)", m.ID(), c.pred, c.gold, got, c.want)
				}
			}
		})
	}
}

// TestBirdEX_ValueRules: bird-ex compares as Python does, like spider-ts, with no
// normalisation.
func TestBirdEX_ValueRules(t *testing.T) {
	cases := []struct {
		name       string
		gold, pred any
		want       bool
	}{
		{"int_equals_float", 1, 1.0, true},
		{"text_never_number", "1", 1, false},
		{"no_float_tolerance", 2.3333333333333335, 2.333333333333333, false},
		{"null_equals_null", nil, nil, true},
		{"null_not_zero", nil, 0, false},
		{"text_not_bytes", "a", []byte("a"), false},
		{"negative_zero", math.Copysign(0, -1), 0, true},
		{"big_int_not_nearest_float", int64(1<<53 + 1), float64(1 << 53), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, p := rows(row(c.gold)), rows(row(c.pred))
			if got := compare.BirdEX.Equal(g, p, false); got != c.want {
				t.Errorf("BirdEX.Equal([[%#v]], [[%#v]])=%v, want %v", c.gold, c.pred, got, c.want)
			}
		})
	}
}
