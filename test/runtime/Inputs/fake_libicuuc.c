/* A stand-in for ICU's libicuuc (built as libicuuc.so.77, C API renamed with _77 as Debian's is) whose
 * failures the real library cannot be made to show: NFC and NFKC instances that fail as when libicudata
 * is missing, and an NFD whose normalize fails. With -DFAKE_ICU_PARTIAL it has only u_strFromUTF8_77. */
#include <stdint.h>

typedef uint16_t UChar;
typedef int UErrorCode;

enum {
  kFileAccessError = 4,     /* U_FILE_ACCESS_ERROR */
  kInternalProgramError = 5 /* U_INTERNAL_PROGRAM_ERROR */
};

/* ASCII only: enough for the suffix probe and the texts the tests send. */
UChar *u_strFromUTF8_77(UChar *dest, int32_t cap, int32_t *len, const char *src, int32_t n,
                        UErrorCode *err) {
  for (int32_t i = 0; i < n && i < cap; ++i)
    dest[i] = (unsigned char)src[i];
  *len = n;
  (void)err;
  return dest;
}

#ifndef FAKE_ICU_PARTIAL
static const int kInstance = 1;

char *u_strToUTF8_77(char *dest, int32_t cap, int32_t *len, const UChar *src, int32_t n,
                     UErrorCode *err) {
  for (int32_t i = 0; i < n && i < cap; ++i)
    dest[i] = (char)src[i];
  *len = n;
  (void)err;
  return dest;
}

const char *u_errorName_77(UErrorCode code) {
  return code == kFileAccessError ? "U_FILE_ACCESS_ERROR"
         : code == kInternalProgramError ? "U_INTERNAL_PROGRAM_ERROR" : "U_OTHER";
}

const void *unorm2_getNFCInstance_77(UErrorCode *err) {
  *err = kFileAccessError;
  return 0;
}
const void *unorm2_getNFKCInstance_77(UErrorCode *err) {
  *err = kFileAccessError;
  return 0;
}
const void *unorm2_getNFDInstance_77(UErrorCode *err) {
  (void)err;
  return &kInstance;
}
const void *unorm2_getNFKDInstance_77(UErrorCode *err) {
  (void)err;
  return &kInstance;
}

int32_t unorm2_normalize_77(const void *n, const UChar *src, int32_t len, UChar *dest, int32_t cap,
                            UErrorCode *err) {
  (void)n, (void)src, (void)dest, (void)cap;
  *err = kInternalProgramError;
  return len;
}
#endif
