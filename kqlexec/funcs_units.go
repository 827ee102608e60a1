package kqlexec

import (
	"math"
	"strings"
)

// Unit conversion: convert_angle, convert_energy, convert_force, convert_length,
// convert_mass, convert_speed, convert_volume and convert_temperature, with the unit
// names of the KQL reference (matched without regard to case). Each unit is its size
// in the kind's base unit (degree, joule, newton, meter, kilogram, meter per second,
// cubic meter), from the units' definitions; temperatures convert through kelvin.
var unitFactors = map[string]map[string]float64{
	"angle": {"arcminute": 1.0 / 60, "arcsecond": 1.0 / 3600, "centiradian": 1.8 / math.Pi, "deciradian": 18 / math.Pi,
		"degree": 1, "gradian": 0.9, "microdegree": 1e-6, "microradian": 1.8e-4 / math.Pi, "millidegree": 1e-3,
		"milliradian": 0.18 / math.Pi, "nanodegree": 1e-9, "nanoradian": 1.8e-7 / math.Pi, "natomil": 360.0 / 6400,
		"radian": 180 / math.Pi, "revolution": 360},
	"energy": {"britishthermalunit": 1055.05585262, "calorie": 4.184, "decathermec": 1.05505585262e9,
		"decathermimperial": 1.05505585257348e9, "decathermus": 1.054804e9, "electronvolt": 1.602176634e-19, "erg": 1e-7,
		"footpound": 1.355817948, "gigabritishthermalunit": 1.05505585262e12, "gigaelectronvolt": 1.602176634e-10,
		"gigajoule": 1e9, "gigawattday": 8.64e13, "gigawatthour": 3.6e12, "horsepowerhour": 2.6845195377e6, "joule": 1,
		"kilobritishthermalunit": 1.05505585262e6, "kilocalorie": 4184, "kiloelectronvolt": 1.602176634e-16,
		"kilojoule": 1e3, "kilowattday": 8.64e7, "kilowatthour": 3.6e6, "megabritishthermalunit": 1.05505585262e9,
		"megacalorie": 4.184e6, "megaelectronvolt": 1.602176634e-13, "megajoule": 1e6, "megawattday": 8.64e10,
		"megawatthour": 3.6e9, "millijoule": 1e-3, "teraelectronvolt": 1.602176634e-7, "terawattday": 8.64e16,
		"terawatthour": 3.6e15, "thermec": 1.05505585262e8, "thermimperial": 1.05505585257348e8, "thermus": 1.054804e8,
		"wattday": 86400, "watthour": 3600},
	"force": {"decanewton": 10, "dyn": 1e-5, "kilogramforce": 9.80665, "kilonewton": 1e3, "kilopond": 9.80665,
		"kilopoundforce": 4448.2216152605, "meganewton": 1e6, "micronewton": 1e-6, "millinewton": 1e-3, "newton": 1,
		"ounceforce": 0.27801385095378125, "poundal": 0.138254954376, "poundforce": 4.4482216152605,
		"shorttonforce": 8896.443230521, "tonneforce": 9806.65},
	"length": {"angstrom": 1e-10, "astronomicalunit": 1.495978707e11, "centimeter": 0.01, "chain": 20.1168,
		"datamile": 1828.8, "decameter": 10, "decimeter": 0.1, "dtppica": 0.0254 / 6, "dtppoint": 0.0254 / 72,
		"fathom": 1.8288, "foot": 0.3048, "hand": 0.1016, "hectometer": 100, "inch": 0.0254,
		"kilolightyear": 9.46073047258e18, "kilometer": 1000, "kiloparsec": 3.08567758128e19, "lightyear": 9.46073047258e15,
		"megalightyear": 9.46073047258e21, "megaparsec": 3.08567758128e22, "meter": 1, "microinch": 2.54e-8,
		"micrometer": 1e-6, "mil": 2.54e-5, "mile": 1609.344, "millimeter": 0.001, "nanometer": 1e-9,
		"nauticalmile": 1852, "parsec": 3.08567758128e16, "printerpica": 0.0254 / 6.0225, "printerpoint": 0.0254 / 72.27,
		"shackle": 27.432, "solarradius": 6.95510000e8, "twip": 0.0254 / 1440, "ussurveyfoot": 1200.0 / 3937,
		"yard": 0.9144},
	"mass": {"centigram": 1e-5, "decagram": 1e-2, "decigram": 1e-4, "earthmass": 5.9722e24, "grain": 6.479891e-5,
		"gram": 1e-3, "hectogram": 0.1, "kilogram": 1, "kilopound": 453.59237, "kilotonne": 1e6,
		"longhundredweight": 50.80234544, "longton": 1016.0469088, "megapound": 453592.37, "megatonne": 1e9,
		"microgram": 1e-9, "milligram": 1e-6, "nanogram": 1e-12, "ounce": 0.028349523125, "pound": 0.45359237,
		"shorthundredweight": 45.359237, "shortton": 907.18474, "slug": 14.593902937206364, "solarmass": 1.98947e30,
		"stone": 6.35029318, "tonne": 1000},
	"volume": {"acrefoot": 1 / 0.000810714, "autablespoon": 2e-5, "boardfoot": 2.3597372158e-3, "centiliter": 1e-5,
		"cubiccentimeter": 1e-6, "cubicdecimeter": 1e-3, "cubicfoot": 0.028316846592, "cubichectometer": 1e6,
		"cubicinch": 1.6387064e-5, "cubickilometer": 1e9, "cubicmeter": 1, "cubicmicrometer": 1e-18,
		"cubicmile": 4.16818182544058e9, "cubicmillimeter": 1e-9, "cubicyard": 0.764554857984, "decaliter": 1e-2,
		"decausgallon": 0.03785411784, "deciliter": 1e-4, "deciusgallon": 3.785411784e-4, "hectocubicfoot": 2.8316846592,
		"hectocubicmeter": 100, "hectoliter": 0.1, "hectousgallon": 0.3785411784, "imperialbeerbarrel": 0.16365924,
		"imperialgallon": 0.00454609, "imperialounce": 2.84130625e-5, "imperialpint": 5.6826125e-4,
		"kilocubicfoot": 28.316846592, "kilocubicmeter": 1000, "kiloimperialgallon": 4.54609, "kiloliter": 1,
		"kilousgallon": 3.785411784, "liter": 1e-3, "megacubicfoot": 28316.846592, "megaimperialgallon": 4546.09,
		"megaliter": 1000, "megausgallon": 3785.411784, "metriccup": 2.5e-4, "metricteaspoon": 5e-6,
		"microliter": 1e-9, "milliliter": 1e-6, "oilbarrel": 0.158987294928, "uktablespoon": 1.5e-5,
		"usbeerbarrel": 0.1173477658, "uscustomarycup": 2.365882365e-4, "usgallon": 0.003785411784,
		"uslegalcup": 2.4e-4, "usounce": 2.95735295625e-5, "uspint": 4.73176473e-4, "usquart": 9.46352946e-4,
		"ustablespoon": 1.478676478125e-5, "usteaspoon": 4.92892159375e-6},
}

func init() {
	// speed: each length unit per hour, minute and second, and two named units
	speed := map[string]float64{"mileperhour": 0.44704, "knot": 1852.0 / 3600}
	for _, u := range []string{"centimeter", "decimeter", "foot", "inch", "kilometer", "meter", "micrometer",
		"millimeter", "nanometer", "ussurveyfoot", "yard"} {
		m := unitFactors["length"][u]
		speed[u+"persecond"], speed[u+"perminute"], speed[u+"perhour"] = m, m/60, m/3600
	}
	unitFactors["speed"] = speed
}

// temperatures are affine: to kelvin and back.
var temperatures = map[string]struct{ toK, fromK func(float64) float64 }{
	"kelvin":             {func(x float64) float64 { return x }, func(k float64) float64 { return k }},
	"degreecelsius":      {func(x float64) float64 { return x + 273.15 }, func(k float64) float64 { return k - 273.15 }},
	"millidegreecelsius": {func(x float64) float64 { return x/1000 + 273.15 }, func(k float64) float64 { return (k - 273.15) * 1000 }},
	"degreefahrenheit":   {func(x float64) float64 { return (x + 459.67) * 5 / 9 }, func(k float64) float64 { return k*9/5 - 459.67 }},
	"degreerankine":      {func(x float64) float64 { return x * 5 / 9 }, func(k float64) float64 { return k * 9 / 5 }},
	"degreedelisle":      {func(x float64) float64 { return 373.15 - x*2/3 }, func(k float64) float64 { return (373.15 - k) * 3 / 2 }},
	"degreenewton":       {func(x float64) float64 { return x*100/33 + 273.15 }, func(k float64) float64 { return (k - 273.15) * 33 / 100 }},
	"degreereaumur":      {func(x float64) float64 { return x*5/4 + 273.15 }, func(k float64) float64 { return (k - 273.15) * 4 / 5 }},
	"degreeroemer":       {func(x float64) float64 { return (x-7.5)*40/21 + 273.15 }, func(k float64) float64 { return (k-273.15)*21/40 + 7.5 }},
	"solartemperature":   {func(x float64) float64 { return x * 5778 }, func(k float64) float64 { return k / 5778 }},
}

func convertUnit(kind string) *fnDef {
	return fixed(TReal, func(a []any) any {
		v, ok := toReal(a[0])
		if !ok || a[0] == nil {
			return nil
		}
		from, to := strings.ToLower(str(a, 1)), strings.ToLower(str(a, 2))
		if kind == "temperature" {
			f, ok1 := temperatures[from]
			t, ok2 := temperatures[to]
			if !ok1 || !ok2 {
				return nil
			}
			return t.fromK(f.toK(v))
		}
		ff, ok1 := unitFactors[kind][from]
		tf, ok2 := unitFactors[kind][to]
		if !ok1 || !ok2 {
			return nil
		}
		return v * ff / tf
	}, TReal, TString, TString)
}
