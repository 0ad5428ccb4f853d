/*
 * Licensed to the Apache Software Foundation (ASF) under one or more
 * contributor license agreements.  See the NOTICE file distributed with
 * this work for additional information regarding copyright ownership.
 * The ASF licenses this file to You under the Apache License, Version 2.0
 * (the "License"); you may not use this file except in compliance with
 * the License.  You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package org.apache.nutch.parse;

/**
 * The result of parsing a page's raw content.
 * 
 * @see Parser#getParse(Content)
 */
public interface Parse {

  /**
   * The textual content of the page. This is indexed, searched, and used when
   * generating snippets.
   * @return the entire text String
   */
  String getText();

  /**
   * Other data extracted from the page.
   * @return a populated {@link ParseData} object
   */
  ParseData getData();

  /**
   * Indicates if the parse is coming from a url or a sub-url
   * @return true if canonical, false otherwise
   */
  boolean isCanonical();
}
