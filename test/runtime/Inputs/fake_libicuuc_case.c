/* A stand-in for ICU's libicuuc (C API renamed with _77 as Debian's is) whose case mapping fails in the ways
 * a real ICU cannot be made to: with -DFAKE_CASEMAP_OPEN_FAILS ucasemap_open reports U_FILE_ACCESS_ERROR,
 * otherwise the map opens and every ucasemap_utf8To* call reports U_INTERNAL_PROGRAM_ERROR. */
#include <stdint.h>

typedef uint16_t UChar;
typedef int UErrorCode;

enum {
  kFileAccessError = 4,     /* U_FILE_ACCESS_ERROR */
  kInternalProgramError = 5 /* U_INTERNAL_PROGRAM_ERROR */
};

/* Present only so that the runtime recognizes the library and its suffix. */
UChar *u_strFromUTF8_77(UChar *dest, int32_t cap, int32_t *len, const char *src, int32_t n,
                        UErrorCode *err) {
  (void)dest, (void)cap, (void)src, (void)n, (void)err;
  *len = 0;
  return dest;
}

const char *u_errorName_77(UErrorCode code) {
  return code == kFileAccessError ? "U_FILE_ACCESS_ERROR"
         : code == kInternalProgramError ? "U_INTERNAL_PROGRAM_ERROR" : "U_OTHER";
}

static int kMap = 1;

void *ucasemap_open_77(const char *locale, uint32_t options, UErrorCode *err) {
  (void)locale, (void)options;
#ifdef FAKE_CASEMAP_OPEN_FAILS
  *err = kFileAccessError;
  return 0;
#else
  (void)err;
  return &kMap;
#endif
}

void ucasemap_close_77(void *map) { (void)map; }

static int32_t fail_mapping(UErrorCode *err) {
  *err = kInternalProgramError;
  return 0;
}
int32_t ucasemap_utf8ToUpper_77(const void *m, char *d, int32_t c, const char *s, int32_t n, UErrorCode *err) {
  (void)m, (void)d, (void)c, (void)s, (void)n;
  return fail_mapping(err);
}
int32_t ucasemap_utf8ToLower_77(const void *m, char *d, int32_t c, const char *s, int32_t n, UErrorCode *err) {
  (void)m, (void)d, (void)c, (void)s, (void)n;
  return fail_mapping(err);
}
int32_t ucasemap_utf8ToTitle_77(void *m, char *d, int32_t c, const char *s, int32_t n, UErrorCode *err) {
  (void)m, (void)d, (void)c, (void)s, (void)n;
  return fail_mapping(err);
}

/* No code point has any property: case tests of non-ASCII text are all false. */
int8_t u_hasBinaryProperty_77(int32_t c, int which) {
  (void)c, (void)which;
  return 0;
}
int8_t u_charType_77(int32_t c) {
  (void)c;
  return 0;
}
