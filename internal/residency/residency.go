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
// It happens twice: when this package is initialised, which is early (it imports only
// the standard library, and the linker initialises a package as soon as its imports
// are: about a third of the way through, before the parsers, SDKs and spreadsheet
// library), so the pages of the C libraries, the Go runtime and the first initialisers
// are not still counted while the rest initialise; and when main calls Release.
package residency
