/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Reading GHC's z-encoded symbol names: module and label of an info table.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

/* z-decode the first `len` bytes of `in`. Returns a string allocated with
 * stgMallocBytes. Malformed escapes are copied through unchanged. */
char *zDecode(const char *in, size_t len);

/* Split the symbol of an info table into the module and label it names.
 * See Note [Names of info tables]. *module and *label are set to strings
 * allocated with stgMallocBytes, or to NULL when the symbol does not say.
 * Returns false when `sym` is not an info table symbol at all. */
bool infoSymbolNames(const char *sym, char **module, char **label);

/* The package (unit id, z-decoded: "containers-0.6.4.1") of a Haskell
 * symbol, "main" for the main package's unprefixed symbols, or NULL when
 * the symbol does not say (local names, the RTS's stg_ tables). Allocated
 * with stgMallocBytes. See Note [Names of info tables]. */
char *infoSymbolPackage(const char *sym);

/* Split a constructor description ("package:Module.Con") into its
 * "package:Module" prefix and the constructor name. Either result may be
 * NULL when the description has an unexpected shape. */
void conDescNames(const char *con_desc, char **pkg_module, char **module,
                  char **con);

#include "EndPrivate.h"
