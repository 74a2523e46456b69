# write_if_changed(PATH TEXT): writes TEXT to PATH unless PATH already holds
# it, so that a generated file's users rebuild only when it changes. Used by
# the -P scripts CompilerVersion.cmake and ../Kernels/EmbedSpecs.cmake.
function(write_if_changed path text)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${text}")
endfunction()
