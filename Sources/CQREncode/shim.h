#ifndef TRIPTO_CQRENCODE_SHIM_H
#define TRIPTO_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
