#ifndef LW_LCMS_H
#define LW_LCMS_H
#include <lcms2.h>

// LittleCMS pixel formats are macros Swift does not import; these are their values.
extern const cmsUInt32Number LW_TYPE_RGB_8, LW_TYPE_RGBA_8, LW_TYPE_RGB_16, LW_TYPE_RGBA_16;
extern const cmsUInt32Number LW_TYPE_GRAY_8, LW_TYPE_GRAY_16, LW_TYPE_GRAYA_8, LW_TYPE_GRAYA_16;
extern const cmsUInt32Number LW_TYPE_CMYK_8, LW_TYPE_CMYK_16, LW_TYPE_CMYK_8_REV;
extern const cmsUInt32Number LW_TYPE_RGB_DBL;
extern const cmsUInt32Number LW_TYPE_RGB_FLT, LW_TYPE_RGBA_FLT, LW_TYPE_Lab_DBL, LW_TYPE_XYZ_DBL, LW_TYPE_Lab_FLT;
extern const cmsUInt32Number LW_TYPE_GRAY_FLT;

/// Silences LittleCMS's error output; callers check return values instead.
void lw_lcms_quiet(void);

#endif
