package gen

// Exp, Log, Log1p and Pow are the portable functions of
// docs/data-generation.md §8, for generators built outside this package
// (workload files' random functions) that must give the same bits on
// every machine and in every language.
func Exp(x float64) float64 { return exp(x) }

// Log is the natural logarithm of §8.
func Log(x float64) float64 { return log(x) }

// Log1p is log(1+x) of §8.
func Log1p(x float64) float64 { return log1p(x) }

// Pow is x to the power y of §8, for finite x and y.
func Pow(x, y float64) float64 { return pow(x, y) }
