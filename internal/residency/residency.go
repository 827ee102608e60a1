// Package residency gives back the pages of the qeval executable that start-up brought
// into memory and the command will not use.
//
// Every linked package is initialised before main, and the kernel maps the executable
// in whole page-cache folios (up to 2 MiB each on recent kernels) around each page
// touched, so most of a 190 MB binary would be resident before a command starts,
// whether the command uses the code or not. Only read-only mappings of the executable
// are given back, and never the part the dynamic loader wrote (PT_GNU_RELRO: relocated
// pointers, the GOT): the pages given back are clean copies of the file, which come back
// from the page cache on first touch.
//
// qeval's main calls Release in a goroutine of its own as the command starts: a short
// command ends before it has cost anything, a long one gives back what the package
// initialisers touched while it runs (a Spider run peaked at 45 MB instead of 61 MB
// with the binary's pages cached in small folios, 77 MB instead of 98 MB in the 2 MiB
// folios a freshly linked binary has). Releasing also early in the initialisation, as
// this package once did from its own init, lowered no peak and cost 0.4 ms at every
// start.
package residency
