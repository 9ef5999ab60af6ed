#include "lw_lcms.h"

const cmsUInt32Number LW_TYPE_RGB_8 = TYPE_RGB_8, LW_TYPE_RGBA_8 = TYPE_RGBA_8;
const cmsUInt32Number LW_TYPE_RGB_16 = TYPE_RGB_16, LW_TYPE_RGBA_16 = TYPE_RGBA_16;
const cmsUInt32Number LW_TYPE_GRAY_8 = TYPE_GRAY_8, LW_TYPE_GRAY_16 = TYPE_GRAY_16;
const cmsUInt32Number LW_TYPE_GRAYA_8 = TYPE_GRAYA_8, LW_TYPE_GRAYA_16 = TYPE_GRAYA_16;
const cmsUInt32Number LW_TYPE_CMYK_8 = TYPE_CMYK_8, LW_TYPE_CMYK_16 = TYPE_CMYK_16, LW_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;
const cmsUInt32Number LW_TYPE_RGB_FLT = TYPE_RGB_FLT, LW_TYPE_RGBA_FLT = TYPE_RGBA_FLT;
const cmsUInt32Number LW_TYPE_Lab_DBL = TYPE_Lab_DBL, LW_TYPE_XYZ_DBL = TYPE_XYZ_DBL, LW_TYPE_Lab_FLT = TYPE_Lab_FLT;
const cmsUInt32Number LW_TYPE_GRAY_FLT = TYPE_GRAY_FLT;

static void on_error(cmsContext ctx, cmsUInt32Number code, const char *text) { (void)ctx; (void)code; (void)text; }
void lw_lcms_quiet(void) { cmsSetLogErrorHandler(on_error); }
const cmsUInt32Number LW_TYPE_RGB_DBL = TYPE_RGB_DBL;
