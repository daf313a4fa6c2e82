# Writes OUTPUT, a C++ file holding every nvrtc_templates/*.cuh as a string, so the installed
# library needs no source tree. Run at build time: cmake -DTEMPLATE_DIR=... -DOUTPUT=... -P this.
file(GLOB templates RELATIVE ${TEMPLATE_DIR} ${TEMPLATE_DIR}/*.cuh)
list(SORT templates)
set(entries "")
foreach(name ${templates})
  file(READ ${TEMPLATE_DIR}/${name} text)
  string(APPEND entries "    {\"${name}\", R\"lzT(${text})lzT\"},\n")
endforeach()
list(LENGTH templates count)
file(WRITE ${OUTPUT}.tmp "// Generated from nvrtc_templates/ by cmake/embed_templates.cmake. Do not edit.
#include \"codegen/templates.h\"

namespace lazy::codegen {

std::span<const EmbeddedTemplate> embedded_templates() {
  static const EmbeddedTemplate kTemplates[] = {
${entries}  };
  return kTemplates;
}

}  // namespace lazy::codegen
")
# Only touch OUTPUT when its content changes, so an unchanged template rebuilds nothing.
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
