#ifndef CLIBSECRET_SHIM_H
#define CLIBSECRET_SHIM_H

// The path-level API (search for paths, fetch many secrets in one GetSecrets, delete by path)
// is what makes listing and wiping a group cheap; libsecret guards it behind this macro.
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>

#endif
